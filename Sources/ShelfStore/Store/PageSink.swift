internal import Dispatch
internal import Synchronization

/// Hands the pages of a snapshot read from its producer (the backend's read, which holds the
/// snapshot) to its consumer (`SnapshotPages`' iterator), with at most `capacity` pages
/// waiting between them: a consumer slower than the read makes the producer wait, so memory
/// does not grow with the result.
///
/// The producer is blocking code on a thread of its own (`sendBlocking`, SQLite) or a task
/// (`send`, PostgreSQL); it ends with `finish(throwing:)`. The consumer takes pages with
/// `receive()`, which suspends (never blocks) while none is ready. `stop()` (the consumer
/// quit, or its task was cancelled) drops the waiting pages and makes the producer's next
/// send throw `CancellationError`, which ends the read and releases its snapshot.
package final class PageSink<Value: Sendable>: Sendable {
    /// How far the read has got, for tests of the memory bound.
    package struct Progress: Sendable, Equatable {
        /// Pages the producer has handed over.
        package var sent: Int
        /// Pages the consumer has taken.
        package var received: Int
        /// The producer waits for the consumer to take a page.
        package var producerWaiting: Bool
        /// The producer has ended (with or without an error).
        package var finished: Bool
    }

    private struct State {
        var pages: [[Value]] = []
        var finished = false
        var failure: (any Error)?
        var stopped = false
        /// What a stopped sink's consumer gets, once (nil: `CancellationError`, every time).
        var stopFailure: (any Error)?
        var stopFailureDelivered = false
        /// The consumer, suspended in `receive()` while no page is ready.
        var consumer: CheckedContinuation<[Value]?, any Error>?
        /// A blocking producer waits on `space`; whoever frees space or stops signals it once.
        var producerBlocked = false
        /// An async producer, suspended while the buffer is full.
        var producer: CheckedContinuation<Void, Never>?
        var sent = 0
        var received = 0
    }

    private let state = Mutex(State())
    private let space = DispatchSemaphore(value: 0)
    /// How many pages may wait for the consumer.
    package let capacity: Int

    /// A sink where at most `capacity` pages (at least 1) wait for the consumer.
    package init(capacity: Int = 1) {
        self.capacity = max(1, capacity)
    }

    /// What happened to a page handed to `offer`.
    private enum Offer {
        case stopped
        case handed(CheckedContinuation<[Value]?, any Error>)
        case buffered
        case full
    }

    /// Hands `page` on, or says why it cannot now. Under the lock.
    private func offer(_ page: [Value], _ state: inout State, waiting: (inout State) -> Void) -> Offer {
        if state.stopped { return .stopped }
        if let consumer = state.consumer {
            state.consumer = nil
            state.sent += 1
            state.received += 1
            return .handed(consumer)
        }
        if state.pages.count < capacity {
            state.pages.append(page)
            state.sent += 1
            return .buffered
        }
        waiting(&state)
        return .full
    }

    /// Hands `page` to the consumer, blocking this thread while `capacity` pages wait already.
    /// Call it from the read's own thread, never from a task.
    /// - Throws: `CancellationError` once the consumer has stopped: end the read.
    package func sendBlocking(_ page: [Value]) throws(CancellationError) {
        while true {
            switch state.withLock({ offer(page, &$0, waiting: { $0.producerBlocked = true }) }) {
            case .stopped: throw CancellationError()
            case .handed(let consumer):
                consumer.resume(returning: page)
                return
            case .buffered: return
            case .full: space.wait()
            }
        }
    }

    /// Hands `page` to the consumer, suspending while `capacity` pages wait already.
    /// - Throws: `CancellationError` once the consumer has stopped: end the read.
    package func send(_ page: [Value]) async throws(CancellationError) {
        while true {
            switch state.withLock({ offer(page, &$0, waiting: { _ in }) }) {
            case .stopped: throw CancellationError()
            case .handed(let consumer):
                consumer.resume(returning: page)
                return
            case .buffered: return
            case .full:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = state.withLock { state -> Bool in
                        if state.stopped || state.pages.count < capacity { return true }
                        state.producer = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    /// Ends the pages: the consumer gets nil after the waiting ones, or `failure`. Ignored
    /// after `stop()` (nobody is listening).
    package func finish(throwing failure: (any Error)?) {
        let consumer = state.withLock { state -> CheckedContinuation<[Value]?, any Error>? in
            state.finished = true
            guard !state.stopped else { return nil }
            state.failure = failure
            let consumer = state.consumer
            state.consumer = nil
            // A consumer waits only while no page is ready: it gets the end now.
            if consumer != nil { state.failure = nil }
            return consumer
        }
        guard let consumer else { return }
        if let failure {
            consumer.resume(throwing: failure)
        } else {
            consumer.resume(returning: nil)
        }
    }

    /// What `receive()` found.
    private enum Take {
        case page([Value], wakeBlocked: Bool, wake: CheckedContinuation<Void, Never>?)
        case end(failure: (any Error)?)
        case wait
    }

    /// The next page, in order; nil after the last. Suspends while none is ready.
    /// - Throws: what the producer finished with (once; nil follows), or `CancellationError`
    ///   after `stop()`.
    package func receive() async throws -> [Value]? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[Value]?, any Error>) in
            let action = state.withLock { state -> Take in
                if state.stopped {
                    guard let failure = state.stopFailure else { return .end(failure: CancellationError()) }
                    if state.stopFailureDelivered { return .end(failure: nil) }
                    state.stopFailureDelivered = true
                    return .end(failure: failure)
                }
                if !state.pages.isEmpty {
                    let page = state.pages.removeFirst()
                    state.received += 1
                    let wakeBlocked = state.producerBlocked
                    state.producerBlocked = false
                    let wake = state.producer
                    state.producer = nil
                    return .page(page, wakeBlocked: wakeBlocked, wake: wake)
                }
                if state.finished {
                    let failure = state.failure
                    state.failure = nil
                    return .end(failure: failure)
                }
                state.consumer = continuation
                return .wait
            }
            switch action {
            case .page(let page, let wakeBlocked, let wake):
                // Woken outside the lock: the producer takes the lock itself.
                if wakeBlocked { space.signal() }
                wake?.resume()
                continuation.resume(returning: page)
            case .end(let failure):
                if let failure {
                    continuation.resume(throwing: failure)
                } else {
                    continuation.resume(returning: nil)
                }
            case .wait:
                break
            }
        }
    }

    /// The consumer quits, or (with `failure`) the store closes: drops the waiting pages, ends
    /// a `receive()` in progress with `CancellationError` (or `failure`, given once, then nil),
    /// and wakes a waiting producer, whose send throws `CancellationError`. Safe to call more
    /// than once, from any thread; the first call decides what the consumer gets.
    package func stop(failing failure: (any Error)? = nil) {
        let (consumer, wakeBlocked, producer, delivered) = state.withLock {
            state -> (CheckedContinuation<[Value]?, any Error>?, Bool, CheckedContinuation<Void, Never>?, (any Error)?)
            in
            if !state.stopped, let failure {
                state.stopFailure = failure
                // A consumer waiting now gets it below.
                if state.consumer != nil { state.stopFailureDelivered = true }
            }
            state.stopped = true
            state.pages = []
            state.failure = nil
            defer {
                state.consumer = nil
                state.producerBlocked = false
                state.producer = nil
            }
            return (state.consumer, state.producerBlocked, state.producer, state.stopFailure)
        }
        if wakeBlocked { space.signal() }
        producer?.resume()
        consumer?.resume(throwing: delivered ?? CancellationError())
    }

    /// Whether `stop()` was called.
    package var isStopped: Bool { state.withLock { $0.stopped } }

    /// How far the read has got.
    package var progress: Progress {
        state.withLock {
            Progress(
                sent: $0.sent, received: $0.received, producerWaiting: $0.producerBlocked || $0.producer != nil,
                finished: $0.finished)
        }
    }
}
