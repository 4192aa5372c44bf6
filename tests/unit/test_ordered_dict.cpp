// ember::OrderedDict: insertion order, lookup, and LibTorch's errors.
#include <gtest/gtest.h>

#include "UnitTestUtil.h"
#include "ember/OrderedDict.h"

namespace {

using ember::test::error_of;

TEST(OrderedDict, KeepsInsertionOrderAndLooksUp) {
  ember::OrderedDict<std::string, int> d("Parameter");
  d.insert("b", 1);
  d.insert("a", 2);
  d.insert("c", 3);
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(d.values(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(d["a"], 2);
  EXPECT_EQ(d[1].key(), "a");
  EXPECT_TRUE(d.contains("c"));
  EXPECT_FALSE(d.contains("z"));
  EXPECT_EQ(d.find("z"), nullptr);
  d.erase("b");
  EXPECT_EQ(d.keys(), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(d["c"], 3);
  d.insert_or_assign("a", 7);
  EXPECT_EQ(d.front().value(), 7);
  EXPECT_EQ(d.back().key(), "c");
  std::string seen;
  for (const auto& item : d) seen += item.key();
  EXPECT_EQ(seen, "ac");
}

TEST(OrderedDict, ErrorsNameTheKey) {
  ember::OrderedDict<std::string, int> d("Parameter");
  d.insert("w", 1);
  EXPECT_EQ(error_of([&] { d.insert("w", 2); }), "Parameter 'w' already defined");
  EXPECT_EQ(error_of([&] { (void)d["x"]; }), "Parameter 'x' is not defined");
  ember::OrderedDict<std::string, int> other;
  other.insert("v", 1);
  other.insert("w", 1);
  EXPECT_EQ(error_of([&] { d.update(other); }), "Parameter 'w' already defined");
  EXPECT_EQ(d.size(), 1u);  // nothing inserted by the failed update
  EXPECT_THROW((void)d[5], ember::IndexError);
}

}  // namespace
