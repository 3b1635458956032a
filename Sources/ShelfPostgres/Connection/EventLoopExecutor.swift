#if PostgreSQL
    internal import PostgresNIO

    /// A task executor that runs its jobs on one NIO event loop: a pooled call's body runs on
    /// its connection's event loop (`PostgresPool.withLease`), where postgres-nio writes the
    /// query and reads the answer, so the answer resumes the call where it arrived instead of
    /// waking a thread of the cooperative pool for it (and a write does not hop to the event
    /// loop either).
    ///
    /// Sendable: its one property is an immutable `EventLoop` (itself Sendable).
    final class EventLoopExecutor: TaskExecutor {
        let eventLoop: any EventLoop

        init(_ eventLoop: any EventLoop) {
            self.eventLoop = eventLoop
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }
#endif
