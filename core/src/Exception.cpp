#include "ember/core/Exception.h"

namespace ember::detail {

void throw_internal(const char* cond, const char* file, int line, const std::string& msg) {
  throw InternalError(fmt::format("[internal] {}:{}: assertion `{}` failed{}{} (this is a bug in Ember)",
                                  file, line, cond, msg.empty() ? "" : ": ", msg));
}

}  // namespace ember::detail
