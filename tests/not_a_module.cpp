// A shared library that loads but is none of gpuwatch's modules: the loader must refuse it by its missing
// entry point. Built here rather than borrowed, so the sanitizer tree need not build the simulator for it.
extern "C" int gpuwatch_test_not_a_module() {
  return 0;
}
