#pragma once
// The plugin SDK: what a plugin source includes.
#include "ember/dispatcher/Library.h"
#include "ember/plugin/Notes.h"
