#include <ember/ember.h>
int helper_threads() { return ember::get_num_threads(); }
