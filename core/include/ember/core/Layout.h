#pragma once
// Layout lives with Device (both are small enums carried by every tensor).
#include "ember/core/Device.h"
