#if PostgreSQL
    internal import Dispatch
    internal import Synchronization

    /// Runs `body` in a new task and blocks the calling thread until it ends; returns what it
    /// returned or throws what it threw.
    ///
    /// For the blocking entry points of the store (snapshot reads, imports), which are called
    /// from a plain thread that may block. Never call it from a task: it would hold one of the
    /// few threads the tasks run on while it waits for another task.
    func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
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
            preconditionFailure("runBlocking: the task signalled without a result")
        }
        return try result.get()
    }
#endif
