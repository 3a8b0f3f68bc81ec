/* no_entry.c — a shared object that is not an fpdiv plugin: it lacks the entry point. */
int not_a_plugin(void) { return 42; }
