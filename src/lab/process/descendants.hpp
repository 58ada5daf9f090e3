// The processes a measured program leaves behind. A program's child that leaves its session
// (setsid, a daemon) is outside the process group a worker's timeout kills, and is re-parented to
// init when its parent exits. A process that is a child subreaper (PR_SET_CHILD_SUBREAPER) gets
// those orphans as its own children instead, and can end them.
#pragma once

#include <cstddef>

namespace alloclab::process {

// Makes this process the subreaper of its descendants. False when the kernel refuses.
bool adopt_orphaned_descendants() noexcept;

// SIGKILLs and reaps every child of this process, and the orphans they leave, until none is
// left; returns how many were ended. Call it only while no worker of this process is running.
std::size_t end_leftover_children() noexcept;

}  // namespace alloclab::process
