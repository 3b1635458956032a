#if Server
    internal import Synchronization

    /// What a live stream writes next: the newest value not yet written (with when it was
    /// published), a keep-alive comment, or the end.
    enum LiveNext<Value: Sendable>: Sendable {
        case value(Value, published: ContinuousClock.Instant)
        case keepAlive
        case end
        /// The stream's authorization no longer holds (its token was revoked, its user
        /// deleted): write this 401 detail as an error event and end.
        case unauthorized(String)
    }

    /// A one-slot mailbox between a live property (which posts on the store's queue) and the
    /// task writing a stream: a value posted while another waits replaces it, so a slow client
    /// costs one pending value, never a queue. Values go before keep-alives; `end` wins.
    final class LiveMailbox<Value: Sendable>: Sendable {
        private struct State {
            var pending: (Value, ContinuousClock.Instant)?
            var keepAlive = false
            var ended = false
            var unauthorized: String?
            var waiter: CheckedContinuation<LiveNext<Value>, Never>?
            var onEnd: (@Sendable () -> Void)?
        }

        private let state = Mutex(State())

        /// Posts `value`, replacing one not yet taken.
        func post(_ value: Value) {
            let now = ContinuousClock.now
            let (waiter, replaced) = state.withLock { state -> (CheckedContinuation<LiveNext<Value>, Never>?, Value?) in
                guard !state.ended else { return (nil, nil) }
                if let waiter = state.waiter {
                    state.waiter = nil
                    return (waiter, nil)
                }
                let replaced = state.pending?.0
                state.pending = (value, now)
                // The value is a write: a keep-alive asked for before it is not needed.
                state.keepAlive = false
                return (nil, replaced)
            }
            // A replaced value dies outside the lock (its deinit may run anything).
            withExtendedLifetime(replaced) {}
            waiter?.resume(returning: .value(value, published: now))
        }

        /// Asks for a keep-alive comment, unless something else is to be written anyway.
        func keepAlive() {
            let waiter = state.withLock { state -> CheckedContinuation<LiveNext<Value>, Never>? in
                guard !state.ended else { return nil }
                if let waiter = state.waiter {
                    state.waiter = nil
                    return waiter
                }
                state.keepAlive = true
                return nil
            }
            waiter?.resume(returning: .keepAlive)
        }

        /// Ends the stream: the writer's next `next()` returns `.end` (a pending value is dropped).
        func end() {
            let (waiter, dropped, onEnd) = state.withLock {
                state -> (CheckedContinuation<LiveNext<Value>, Never>?, Value?, (@Sendable () -> Void)?) in
                state.ended = true
                let dropped = state.pending?.0
                state.pending = nil
                defer { (state.waiter, state.onEnd) = (nil, nil) }
                return (state.waiter, dropped, state.onEnd)
            }
            withExtendedLifetime(dropped) {}
            waiter?.resume(returning: .end)
            onEnd?()
        }

        /// Calls `action` when the mailbox ends (at once if it has ended), unless another
        /// `whenEnded` replaces it first; nil forgets the one set. For a writer that waits on
        /// something else than `next()` (a window being encoded) and must stop waiting then.
        func whenEnded(_ action: (@Sendable () -> Void)?) {
            let now = state.withLock { state -> (@Sendable () -> Void)? in
                guard !state.ended else { return action }
                state.onEnd = action
                return nil
            }
            now?()
        }

        /// Ends the stream for want of authorization: the writer's next `next()` returns
        /// `.unauthorized(detail)`, before any value, and `.end` after it.
        func revoke(_ detail: String) {
            let (waiter, dropped, onEnd) = state.withLock {
                state -> (CheckedContinuation<LiveNext<Value>, Never>?, Value?, (@Sendable () -> Void)?) in
                guard !state.ended else { return (nil, nil, nil) }
                state.ended = true
                let dropped = state.pending?.0
                state.pending = nil
                defer { (state.waiter, state.onEnd) = (nil, nil) }
                if state.waiter == nil { state.unauthorized = detail }
                return (state.waiter, dropped, state.onEnd)
            }
            withExtendedLifetime(dropped) {}
            waiter?.resume(returning: .unauthorized(detail))
            onEnd?()
        }

        /// The pending value (with when it was posted), taken without waiting; nil when none.
        func takePending() -> (Value, ContinuousClock.Instant)? {
            state.withLock { state in
                defer { state.pending = nil }
                return state.pending
            }
        }

        /// True once the mailbox has ended (`end`, `revoke`, or the waiting task cancelled): for a
        /// writer busy with a long job of its own to stop between steps. `next()` then says how.
        var hasEnded: Bool { state.withLock { $0.ended } }

        /// The next thing to write, waiting for one; `.end` once ended or the task is cancelled.
        func next() async -> LiveNext<Value> {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<LiveNext<Value>, Never>) in
                    let ready = state.withLock { state -> LiveNext<Value>? in
                        if let detail = state.unauthorized {
                            state.unauthorized = nil
                            return .unauthorized(detail)
                        }
                        if state.ended { return .end }
                        if let (value, published) = state.pending {
                            state.pending = nil
                            return .value(value, published: published)
                        }
                        if state.keepAlive {
                            state.keepAlive = false
                            return .keepAlive
                        }
                        state.waiter = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                end()
            }
        }
    }
#endif
