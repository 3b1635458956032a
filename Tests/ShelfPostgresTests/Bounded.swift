#if PostgreSQL
    import Foundation
    import Synchronization

    /// Waiting for work that may never end (a call the code under test leaves waiting
    /// forever) without hanging the suite: the test fails instead.
    enum Bounded {
        /// Runs `body` in a task of its own and returns its outcome, or nil when it has not
        /// ended within `limit`; then the task is cancelled and left behind (a hung call cannot
        /// be awaited). The deadline is kept by a thread of its own, which a starved cooperative
        /// pool cannot delay.
        static func run<T: Sendable>(within limit: Duration, _ body: @escaping @Sendable () async throws -> T) async
            -> Result<T, any Error>?
        {
            let once = Once<Result<T, any Error>?>()
            return await withCheckedContinuation { continuation in
                once.install(continuation)
                let work = Task {
                    do {
                        once.resolve(.success(try await body()))
                    } catch {
                        once.resolve(.failure(error))
                    }
                }
                Thread.detachNewThread {
                    let deadline = ContinuousClock.now + limit
                    while ContinuousClock.now < deadline, !once.isResolved { usleep(20_000) }
                    if once.resolve(nil) { work.cancel() }
                }
            }
        }
    }

    /// A continuation resumed by the first of several answers.
    private final class Once<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Value, Never>?
            var resolved = false
        }
        private let state = Mutex(State())

        func install(_ continuation: CheckedContinuation<Value, Never>) {
            state.withLock { $0.continuation = continuation }
        }

        var isResolved: Bool { state.withLock { $0.resolved } }

        /// Resumes with `value` unless an answer came first; true when this one won.
        @discardableResult
        func resolve(_ value: Value) -> Bool {
            let continuation = state.withLock { state -> CheckedContinuation<Value, Never>? in
                guard !state.resolved else { return nil }
                state.resolved = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(returning: value)
            return continuation != nil
        }
    }
#endif
