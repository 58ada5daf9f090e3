// Which optional parts of the library are available to the lab in this build.
#pragma once

#if __has_include(<alloclab/arena_resource.hpp>) && __has_include(<alloclab/allocator.hpp>) && \
    __has_include(<alloclab/tracking_resource.hpp>)
#define ALLOCLAB_LAB_HAS_LIBRARY 1
#else
#define ALLOCLAB_LAB_HAS_LIBRARY 0
#endif

#if ALLOCLAB_LAB_HAS_LIBRARY && __has_include(<alloclab/pool_resource.hpp>)
#define ALLOCLAB_LAB_HAS_POOL 1
#else
#define ALLOCLAB_LAB_HAS_POOL 0
#endif
