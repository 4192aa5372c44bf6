#pragma once
// Shared by the sparse suites: EXPECT_ERROR checks the exception type and that its message holds `text`.
#include <gtest/gtest.h>

#include <string>

#include "../unit/UnitTestUtil.h"

#define EXPECT_ERROR(stmt, type, text)                                                    \
  do {                                                                                    \
    EXPECT_THROW(stmt, type);                                                             \
    const std::string e_ = error_of([&] { stmt; });                                       \
    EXPECT_NE(e_.find(text), std::string::npos) << "got: " << e_ << "\nwanted: " << text; \
  } while (0)
