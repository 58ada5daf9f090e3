// alloclab/alloclab.hpp: every public alloclab component in one include
// (exception_test.hpp only with exceptions; the hosted memory-over-time
// headers, budget_watcher and friends, are included on their own).
#pragma once

#include "allocator.hpp"
#include "allocator_resource.hpp"
#include "arena_resource.hpp"
#include "build_info.hpp"
#include "checked_resource.hpp"
#include "concurrent_multipool_resource.hpp"
#include "failure.hpp"
#include "limit_resource.hpp"
#include "multipool_resource.hpp"
#include "pool_resource.hpp"
#include "scratch_stack.hpp"
#include "segregator_resource.hpp"
#include "synchronized_resource.hpp"
#include "tracking_resource.hpp"
#include "unique_ptr.hpp"

#if ALLOCLAB_EXCEPTIONS
#include "exception_test.hpp"  // needs exceptions
#endif
