internal import Foundation
internal import Synchronization

/// The one bridge from async code to work that blocks its thread (SQLite calls, reading a pipe,
/// writing a file): the work runs on a thread of its own, never on one of the few threads
/// tasks share, and the caller's task suspends until it ends.
///
/// It respects cancellation as `NIOThreadPool.runIfActive` does: when the calling task is
/// already cancelled, the work never starts and `run` throws `CancellationError`; once it
/// runs, cancelling the task sets `BlockingCancellation` (which the work checks between rows)
/// and calls `onCancel` (to wake a read that waits for input, or interrupt a statement).
/// Work that stops because of it throws what it likes; `run` then throws `CancellationError`.
///
/// A thread per call, not a pool of a fixed size: blocking work may wait for other blocking
/// work (an export's reader for the writer of a pipe), which a full pool would deadlock.
package enum BlockingWork {
    /// Runs `body` on a thread of its own and returns what it returns; see the type's
    /// contract for cancellation.
    package static func run<T: Sendable>(
        onCancel: @escaping @Sendable () -> Void = {},
        _ body: @escaping @Sendable (BlockingCancellation) throws -> T
    ) async throws -> T {
        try Task.checkCancellation()
        let cancellation = BlockingCancellation()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                Thread.detachNewThread {
                    continuation.resume(
                        with: Result {
                            do {
                                // Cancelled between the check above and this thread's start.
                                try cancellation.check()
                                return try body(cancellation)
                            } catch  where cancellation.isCancelled {
                                throw CancellationError()
                            }
                        })
                }
            }
        } onCancel: {
            cancellation.cancel()
            onCancel()
        }
    }

    /// The other direction, for the store's blocking entry points (snapshot reads, import
    /// sessions, copies), which run on a plain thread that may block: runs `body` in a task and
    /// blocks the calling thread until it ends; returns what it returned or throws what it
    /// threw. Never call it from a task: it would hold one of the few threads tasks share while
    /// it waits for another task (with both held so, nothing runs again).
    package static func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        // Awaited: this thread waits on `done` until the task has stored its result.
        Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else {
            preconditionFailure("BlockingWork.waitFor: the task signalled without a result")
        }
        return try result.get()
    }

    /// Runs `body`, which must finish whatever happens (closing a store), on a thread of its
    /// own; cancelling the caller's task does not stop it.
    package static func runToEnd<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }
}

/// The cancellation of the task that started a `BlockingWork`, seen from the work's thread.
package final class BlockingCancellation: Sendable {
    private let cancelled = Atomic(false)

    package init() {}

    /// Marks the work cancelled (the task's cancellation handler does).
    package func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    /// Whether the task was cancelled.
    package var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// Throws `CancellationError` once the task was cancelled: call it between rows.
    @inline(__always)
    package func check() throws(CancellationError) {
        if cancelled.load(ordering: .relaxed) { throw CancellationError() }
    }
}
