#if PostgreSQL
    internal import ShelfStore

    /// The errors of a pool call that waited too long: past its work's deadline, or for a
    /// connection.
    extension PostgresPool {
        /// The error of a call still waiting at its work's `deadline`: for a call that had sent
        /// nothing (`nothingSent`: it was waiting for a connection), nothing was done; a write
        /// under way may have been applied. A call its lock-wait watcher saw blocked by other
        /// sessions (`holders`) says so and names them, with how to end them: the server
        /// answered, and a retry waits again while they hold the lock.
        static func deadlineError(
            _ deadline: CallDeadline, _ operation: LockWait.Operation, at location: PostgresLocation, nothingSent: Bool,
            holders: [LockHolderSession] = []
        ) -> StoreError {
            let seconds = deadline.limit.components.seconds
            let outcome =
                nothingSent || operation == .read
                ? "nothing was \(operation.undone)"
                : "the write may or may not have been applied: read it before writing it again"
            var error: StoreError
            if holders.isEmpty {
                error = StoreError(
                    .database,
                    "the PostgreSQL server at \(location.server) did not answer within \(seconds) s "
                        + "(the network to it may be down, or it is overloaded); \(outcome); retry in a moment")
            } else {
                let names = holders.map(\.description).joined(separator: ", ")
                let pids = holders.map { "\($0.pid)" }.joined(separator: ", ")
                let verb = holders.count == 1 ? "holds" : "hold"
                error = StoreError(
                    .busy,
                    "\(names) \(verb) a lock on the store \(location.server)/\(location.database) that "
                        + "\(operation.waiter) waited for until the limit of \(seconds) s; \(outcome); wait for it to "
                        + "finish (commit or roll back), or end it (psql: SELECT pg_terminate_backend(pid) "
                        + "FROM pg_stat_activity WHERE pid IN (\(pids))), then retry")
            }
            error.markServerUnavailable()
            return error
        }

        /// The error of a call that waited `limit` for a connection: the pool's connections all
        /// busy, or (`full`) the server out of connections.
        func waitingError(_ operation: LockWait.Operation, _ limit: Duration, _ full: StoreError?) -> StoreError {
            let place = "\(location.server)/\(location.database)"
            let seconds = limit.components.seconds
            var error =
                if let full {
                    StoreError(
                        .busy,
                        "no connection to the store \(place) came within \(seconds) s: \(full.message); "
                            + "nothing was \(operation.undone); retry in a moment")
                } else {
                    StoreError(
                        .busy,
                        "none of the \(location.maximumConnections) connections to the store \(place) came free "
                            + "within \(seconds) s (the store is overloaded); nothing was \(operation.undone); "
                            + "retry in a moment")
                }
            error.markServerUnavailable()
            return error
        }
    }

    /// A failure while writing one element of a batch: names the element for the message.
    package struct SubjectError: Error {
        package let subject: String?
        package let error: any Error

        package init(subject: String?, error: any Error) {
            self.subject = subject
            self.error = error
        }
    }
#endif
