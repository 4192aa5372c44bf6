// The program multi-process distributed tests start (with Spawn.h): `dist_worker <scenario>
// [args...]` joins the group described by torchrun's environment, runs the named scenario and
// exits 0, or prints "<Kind>: <message>" of the error that ended it and exits 1.
#include <cstdio>
#include <functional>
#include <map>
#include <string>

#include "ember/distributed.h"
#include "ember/ember.h"

using namespace ember;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: dist_worker <scenario> [args...]\n");
    return 2;
  }
  std::fprintf(stderr, "dist_worker: scenario '%s' is not written yet\n", argv[1]);
  return 2;
}
