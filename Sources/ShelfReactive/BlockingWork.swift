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

    /// `run` for work whose caller must hear of its cancellation at once, before the work has
    /// stopped (an import stopped with Ctrl-C while it waits for input or runs a long
    /// statement). When the calling task is cancelled, `answersAtOnce()` decides: false (the
    /// work is past the point where it can stop, say committing) leaves the caller waiting for
    /// the work's result; true resumes the caller with `CancellationError` first, then calls
    /// `onCancel` (to wake the work), and the work goes on to its end on its thread with its
    /// result dropped, so it must change nothing once `answersAtOnce()` said true. Not
    /// fire-and-forget: until that answer the caller awaits the work's outcome, and after it
    /// nobody is left to hear one.
    package static func runAnsweringCancellation<T: Sendable>(
        answersAtOnce: @escaping @Sendable () -> Bool, onCancel: @escaping @Sendable () -> Void = {},
        _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try Task.checkCancellation()
        let outcome = OneAnswer<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                guard outcome.start(continuation) else { return }
                Thread.detachNewThread { outcome.finish(Result { try body() }) }
            }
        } onCancel: {
            guard answersAtOnce() else { return }
            // The caller's answer first: the woken work throws an error of its own, which
            // must not become the answer.
            outcome.finish(.failure(CancellationError()))
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

/// The continuation of a `runAnsweringCancellation` caller, resumed once: with the work's
/// result, or with `CancellationError` when the caller was cancelled first.
private final class OneAnswer<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var resumed = false
    }

    private let state = Mutex(State())

    /// Keeps the continuation; false (and it is resumed) when an answer came first.
    func start(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        let early = state.withLock { state -> Result<T, any Error>? in
            guard let result = state.result else {
                state.continuation = continuation
                return nil
            }
            state.resumed = true
            return result
        }
        guard let early else { return true }
        // Resumed outside the lock.
        continuation.resume(with: early)
        return false
    }

    /// Resumes the caller with `result`, unless an answer was given already.
    func finish(_ result: Result<T, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard !state.resumed else { return nil }
            guard let continuation = state.continuation else {
                if state.result == nil { state.result = result }
                return nil
            }
            state.resumed = true
            state.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }
}
