// tt_real_worker ARGS...: the same worker as `traintwin worker ARGS...`, for tests that drive real::run directly.
#include <string>
#include <vector>

#include "real/worker.hpp"

int main(int argc, char** argv) { return tt::real::worker_main(std::vector<std::string>(argv + 1, argv + argc)); }
