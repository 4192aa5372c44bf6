#pragma once
// Data loading: IDX files, datasets (MNIST), DataLoader, transforms.
#include "ember/data/DataLoader.h"
#include "ember/data/Dataset.h"
#include "ember/data/Idx.h"
#include "ember/data/MNIST.h"
#include "ember/data/Transforms.h"
