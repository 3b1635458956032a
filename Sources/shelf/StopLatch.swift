import Synchronization

/// What a command that runs until stopped (`watch`) waits on: the first `stop(_:)` ends the
/// wait; so does cancelling the waiting task (a signal does).
final class StopLatch: Sendable {
    private struct State {
        var outcome: Result<Void, any Error>?
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private let state = Mutex(State())

    /// Ends the wait: normally when `error` is nil, else by throwing it. Later calls do nothing.
    func stop(throwing error: (any Error)? = nil) {
        let outcome: Result<Void, any Error> = error.map { .failure($0) } ?? .success(())
        // Resumed outside the lock: the waiting task may run at once.
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: outcome)
    }

    /// Waits for `stop(_:)`, or for the task's cancellation (then throws `CancellationError`).
    func wait() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.outcome == nil { state.continuation = continuation }
                    return state.outcome
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            stop(throwing: CancellationError())
        }
    }
}
