#pragma once
// `ember train` (tools/train/Train.cpp): argv[0] is "train".
namespace ember::train {
int main(int argc, char** argv);
}
