import Foundation
import Synchronization

/// Runs `body`, which blocks (a long read that streams rows), on a thread of its own so no
/// task is blocked; cancelling the calling task (a signal) sets the flag `body` checks.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable (CancellationFlag) throws -> T) async throws -> T {
    let flag = CancellationFlag()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body(flag) }) }
        }
    } onCancel: {
        flag.cancel()
    }
}

/// A task's cancellation, seen from a thread that is not the task's.
final class CancellationFlag: Sendable {
    private let cancelled = Atomic(false)

    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    /// Throws `CancellationError` once the task was cancelled.
    func check() throws {
        if cancelled.load(ordering: .relaxed) { throw CancellationError() }
    }
}
