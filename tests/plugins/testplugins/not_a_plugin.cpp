// An ordinary shared library: no Ember notes at all.
extern "C" int not_a_plugin_answer() { return 42; }
