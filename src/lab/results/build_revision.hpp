// The source tree's git revision when the lab was built: "85ca753fab64", with "-dirty" when the
// tree differed from the commit (untracked files included), "" without a git checkout. Defined
// in build_revision.cpp, which cmake/BuildRevision.cmake generates at build time; never asked of
// git at run time.
#pragma once

namespace alloclab::lab {

const char* build_revision() noexcept;

}  // namespace alloclab::lab
