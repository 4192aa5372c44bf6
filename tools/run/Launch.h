#pragma once
// `ember run` (tools/run/Launch.cpp): torchrun's launcher. argv[0] is "run".
namespace ember::run {
int main(int argc, char** argv);
}
