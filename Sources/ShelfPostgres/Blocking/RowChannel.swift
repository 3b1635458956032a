#if PostgreSQL
    internal import Dispatch
    internal import Synchronization

    /// Hands rows from an async producer (a task reading a query's rows) to a blocking consumer
    /// (a plain thread), through a buffer of at most `capacity` rows: memory stays flat however
    /// many rows there are, and the consumer's code runs on its own thread.
    ///
    /// The producer `send`s and, when the buffer is full, is suspended (not blocked) until the
    /// consumer takes the rows; it ends with `finish`. The consumer takes rows a batch at a
    /// time with `next()`, which blocks while the buffer is empty, and calls `stop()` when it
    /// quits early (its body threw): the producer's next `send` returns false.
    package final class RowChannel<Row: Sendable>: Sendable {
        private struct State {
            var rows: [Row] = []
            var finished = false
            var failure: (any Error)?
            var stopped = false
            /// The consumer waits on `available`; whoever adds rows or finishes signals it once.
            var consumerWaiting = false
            /// The producer, suspended while the buffer is full.
            var producer: CheckedContinuation<Void, Never>?
        }

        private let state = Mutex(State())
        private let available = DispatchSemaphore(value: 0)
        package let capacity: Int
        /// How many rows wake a waiting consumer: waking it for every row would cost a thread
        /// switch per row.
        private let wakeCount: Int

        package init(capacity: Int) {
            self.capacity = max(1, capacity)
            wakeCount = max(1, min(256, self.capacity / 4))
        }

        /// Adds `row`; suspends while the buffer is full. Returns false when the consumer has
        /// stopped: the producer should end.
        package func send(_ row: Row) async -> Bool {
            let (accepted, wake, full) = state.withLock { state -> (Bool, Bool, Bool) in
                guard !state.stopped else { return (false, false, false) }
                state.rows.append(row)
                let wake = state.consumerWaiting && state.rows.count >= wakeCount
                if wake { state.consumerWaiting = false }
                return (true, wake, state.rows.count >= capacity)
            }
            guard accepted else { return false }
            if wake { available.signal() }
            if full {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.stopped || state.rows.count < capacity { return true }
                        state.producer = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
            return !state.withLock { $0.stopped }
        }

        /// Ends the rows, with `failure` when the producer failed.
        package func finish(throwing failure: (any Error)?) {
            let wake = state.withLock { state -> Bool in
                state.finished = true
                state.failure = failure
                let wake = state.consumerWaiting
                state.consumerWaiting = false
                return wake
            }
            if wake { available.signal() }
        }

        /// The next rows, in order; nil at the end. Blocks while none is ready.
        /// - Throws: what the producer finished with.
        package func next() throws -> [Row]? {
            while true {
                let (batch, producer, finished, failure) = state.withLock {
                    state -> ([Row], CheckedContinuation<Void, Never>?, Bool, (any Error)?) in
                    if !state.rows.isEmpty {
                        let batch = state.rows
                        state.rows = []
                        state.rows.reserveCapacity(capacity)
                        let producer = state.producer
                        state.producer = nil
                        return (batch, producer, false, nil)
                    }
                    if state.finished { return ([], nil, true, state.failure) }
                    state.consumerWaiting = true
                    return ([], nil, false, nil)
                }
                // Resumed outside the lock: the producer then takes the lock itself.
                producer?.resume()
                if !batch.isEmpty { return batch }
                if finished {
                    if let failure { throw failure }
                    return nil
                }
                available.wait()
            }
        }

        /// The consumer quits: drops the buffered rows and lets a suspended producer go on to
        /// see it. Safe to call more than once.
        package func stop() {
            let producer = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.stopped = true
                state.rows = []
                let producer = state.producer
                state.producer = nil
                return producer
            }
            producer?.resume()
        }
    }
#endif
