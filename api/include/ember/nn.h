#pragma once
// The Module API (LibTorch's torch::nn in namespace ember::nn): Module and its holders,
// containers, layers, init and utils.
//
// Note [Adding a layer]
// A layer is a FooOptions struct of EMBER_ARG fields, a `class EMBER_API FooImpl :
// public Cloneable<FooImpl>` with the options as its `options` member, reset() (registers its
// parameters and buffers and initialises them as PyTorch does), pretty_print() (LibTorch's text,
// "ember::nn::Foo(...)") and forward(), and EMBER_MODULE(Foo). It goes in the header of its family
// under ember/nn/modules/ (or a new one, added below) with its definitions in api/src/nn/; a
// family's shared part is a template base (ConvNdImpl, BatchNormImplBase, MaxPoolImpl, ...), so
// a new dimension is a few lines. See LinearImpl for the whole pattern.
#include "ember/nn/Cloneable.h"
#include "ember/nn/Enum.h"
#include "ember/nn/ExpandingArray.h"
#include "ember/nn/Init.h"
#include "ember/nn/Module.h"
#include "ember/nn/Pimpl.h"
#include "ember/nn/Utils.h"
#include "ember/nn/modules/Activation.h"
#include "ember/nn/modules/AnyModule.h"
#include "ember/nn/modules/BatchNorm.h"
#include "ember/nn/modules/Conv.h"
#include "ember/nn/modules/Dropout.h"
#include "ember/nn/modules/Embedding.h"
#include "ember/nn/modules/Functional.h"
#include "ember/nn/modules/InstanceNorm.h"
#include "ember/nn/modules/Linear.h"
#include "ember/nn/modules/Loss.h"
#include "ember/nn/modules/ModuleDict.h"
#include "ember/nn/modules/ModuleList.h"
#include "ember/nn/modules/Normalization.h"
#include "ember/nn/modules/ParameterList.h"
#include "ember/nn/modules/Padding.h"
#include "ember/nn/modules/Pooling.h"
#include "ember/nn/modules/Sequential.h"
#include "ember/nn/modules/Transformer.h"
#include "ember/nn/modules/Upsampling.h"
