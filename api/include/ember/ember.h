#pragma once
// The one header users include.
#include "ember/core/AutogradHooks.h"
#include "ember/core/IValue.h"
#include "ember/core/LocalState.h"
#include "ember/core/Schema.h"
#include "ember/core/Tensor.h"
#include "ember/dispatcher/Dispatcher.h"
#include "ember/dispatcher/Library.h"
#include "ember/dispatcher/Ops.h"
#include "ember/dispatcher/Plugins.h"
#include "ember/generated/Functions.h"
#include "ember/api/Operators.h"
#include "ember/api/Threads.h"
