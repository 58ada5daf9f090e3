// The recording's life: started when the library loads (the environment says what to record and
// where), finished at exit, before an exec, at a fatal signal and before the process kills
// itself: the footer is written and the trace closed, so that it is always readable.
#pragma once

namespace alloclab::record {

/// Stops recording, flushes every thread that is not inside an event and writes the footer.
void finish_recording() noexcept;
/// Before kill/raise of this process with `signal`: finishes the trace if the signal ends it.
void finish_before_own_signal(int signal) noexcept;
/// Before an exec: the new image replaces this one without running destructors.
void finish_before_exec() noexcept;

}  // namespace alloclab::record
