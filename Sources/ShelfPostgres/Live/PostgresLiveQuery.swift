#if PostgreSQL
    internal import ShelfReactive
    internal import ShelfStore
    internal import Synchronization

    /// One live value of a `PostgresChangeFeed`: a fetch, the tables it reads, and the property it
    /// publishes to. The property retains the query; the listener only knows it weakly, so the
    /// query (and its registration) goes when the property and its observations go.
    ///
    /// **Runs.** A change notification schedules a run; while one is scheduled, more
    /// notifications add nothing; while one is running, they set a single dirty flag, and one
    /// more run follows. A burst of commits therefore costs at most two runs, never a queue.
    ///
    /// **Failures.** A failed run publishes `.failure` once (an equal failure is not published
    /// again), then retries after 100 ms, 300 ms, 1 s, and every 3 s after that, as well as on every
    /// notification, until a run succeeds; its value is then published (it differs from the
    /// failure even when it equals the value before it).
    final class PostgresLiveQuery<Value: Equatable & Sendable>: ChangeObserver {
        private enum RunState {
            case idle
            /// A run task was made and has not started its fetch yet.
            case scheduled
            case running
            /// Running, and a change arrived since the fetch started: run once more.
            case runningDirty
        }

        private struct State {
            /// Set by `start`, once the first value is read.
            var mutable: MutableProperty<LiveResult<Value>>?
            var registration: UInt64?
            var run = RunState.idle
            /// A change arrived before `start`: the first value may predate it.
            var changedBeforeStart = false
            var stopped = false
            /// Failed runs in a row; picks the delay of the next retry.
            var failures = 0
            var retry: Task<Void, Never>?
            /// The listener's loss is shown (`listenerWasLost`): runs publish nothing until it is
            /// back, so the failure stays while changes may go unseen.
            var lost = false
            /// A run ended while the loss was shown: run again once the listener is back.
            var runAfterReconnect = false
            /// The last value published with success: shown again when the listener comes back
            /// and nothing this query reads changed meanwhile.
            var lastGood: Value?
        }

        private let listener: ChangeListener
        private let fetch: @Sendable () async throws -> Value
        private let translate: @Sendable (any Error) -> StoreError
        private let state = Mutex(State())

        /// Delays before retrying a failed run: the last one repeats while failures go on.
        static var retryDelays: [Duration] { [.milliseconds(100), .milliseconds(300), .seconds(1), .seconds(3)] }

        /// Registers with `listener` at once (so a change from now on is not missed); `start`
        /// publishes.
        init(
            tables: Set<String>, listener: ChangeListener, translate: @escaping @Sendable (any Error) -> StoreError,
            fetch: @escaping @Sendable () async throws -> Value
        ) {
            self.listener = listener
            self.fetch = fetch
            self.translate = translate
            let key = listener.register(self, tables: tables)
            state.withLock { $0.registration = key }
        }

        deinit {
            let (key, retry) = state.withLock { ($0.registration, $0.retry) }
            retry?.cancel()
            if let key { listener.unregister(key) }
        }

        /// Starts publishing from `initial`, read after `LISTEN` was acknowledged. Returns the
        /// property to hand out (it must retain this query).
        func start(initial: Value) -> MutableProperty<LiveResult<Value>> {
            let mutable = MutableProperty(LiveResult<Value>.success(initial))
            let changed = state.withLock { state in
                state.mutable = mutable
                state.lastGood = initial
                defer { state.changedBeforeStart = false }
                return state.changedBeforeStart
            }
            // A change between the subscription and now: read again. (The listener passes on
            // every change logged after its cursor to every registered query, whatever its
            // connection did meanwhile.)
            if changed { tablesDidChange() }
            return mutable
        }

        // MARK: ChangeObserver

        func tablesDidChange() {
            let schedule = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                guard state.mutable != nil else {
                    state.changedBeforeStart = true
                    return false
                }
                switch state.run {
                case .idle:
                    state.run = .scheduled
                    return true
                case .scheduled, .runningDirty:
                    return false
                case .running:
                    state.run = .runningDirty
                    return false
                }
            }
            if schedule { Task { await self.runUntilClean() } }
        }

        private enum ReconnectAction {
            case none
            case run
            case restore(MutableProperty<LiveResult<Value>>, Value)
        }

        func listenerDidReconnect(changed: Bool) {
            let action = state.withLock { state -> ReconnectAction in
                guard state.lost, !state.stopped, let mutable = state.mutable else {
                    return changed ? .run : .none
                }
                state.lost = false
                if changed || state.runAfterReconnect {
                    state.runAfterReconnect = false
                    return .run
                }
                // A run is on its way (the catch-up touched this query): it publishes.
                guard state.run == .idle, let good = state.lastGood else { return .none }
                return .restore(mutable, good)
            }
            switch action {
            case .none:
                break
            case .run:
                tablesDidChange()
            case .restore(let mutable, let good):
                // Nothing it reads changed while the listener was away: the value it had is current.
                let restored = LiveResult<Value>.success(good)
                mutable.modify { current -> Bool in
                    guard current != restored else { return false }
                    current = restored
                    return true
                }
            }
        }

        func listenerWasLost(_ error: StoreError) {
            guard
                let mutable = state.withLock({ state -> MutableProperty<LiveResult<Value>>? in
                    guard !state.stopped, let mutable = state.mutable else { return nil }
                    state.lost = true
                    return mutable
                })
            else { return }
            mutable.modify { current -> Bool in
                guard current != .failure(error) else { return false }
                current = .failure(error)
                return true
            }
        }

        func stop() {
            let retry = state.withLock { state in
                state.stopped = true
                defer { state.retry = nil }
                return state.retry
            }
            retry?.cancel()
        }

        // MARK: Runs

        /// Runs the fetch until no change arrived during the last run.
        private func runUntilClean() async {
            while true {
                let proceed = state.withLock { state -> Bool in
                    guard !state.stopped else {
                        state.run = .idle
                        return false
                    }
                    state.run = .running
                    return true
                }
                guard proceed else { return }
                await runOnce()
                let again = state.withLock { state -> Bool in
                    if state.run == .runningDirty, !state.stopped { return true }
                    state.run = .idle
                    return false
                }
                if !again { return }
            }
        }

        private func runOnce() async {
            let outcome: LiveResult<Value>
            do {
                outcome = .success(try await fetch())
            } catch {
                outcome = .failure(translate(error))
            }
            publish(outcome)
            let cancelled = state.withLock { state -> Task<Void, Never>? in
                switch outcome {
                case .success:
                    state.failures = 0
                    defer { state.retry = nil }
                    return state.retry
                case .failure:
                    state.failures += 1
                    if state.retry == nil, !state.stopped {
                        let delays = Self.retryDelays
                        let delay = delays[min(state.failures, delays.count) - 1]
                        // Made under the lock, so `retryIsDue` always finds it recorded.
                        state.retry = Task { [weak self] in
                            do {
                                try await Task.sleep(for: delay)
                            } catch {
                                return  // cancelled: a run succeeded, or the query or the feed went away
                            }
                            self?.retryIsDue()
                        }
                    }
                    return nil
                }
            }
            cancelled?.cancel()
        }

        /// Publishes `outcome` unless it equals the current value, the feed stopped, or the
        /// listener's loss is shown (the failure that says so stays, and the query runs again
        /// when the listener is back).
        private func publish(_ outcome: LiveResult<Value>) {
            guard
                let mutable = state.withLock({ state -> MutableProperty<LiveResult<Value>>? in
                    guard !state.stopped, let mutable = state.mutable else { return nil }
                    if state.lost {
                        state.runAfterReconnect = true
                        return nil
                    }
                    if case .success(let value) = outcome { state.lastGood = value }
                    return mutable
                })
            else { return }
            mutable.modify { current -> Bool in
                guard current != outcome else { return false }
                current = outcome
                return true
            }
        }

        private func retryIsDue() {
            let failing = state.withLock { state -> Bool in
                state.retry = nil
                return state.failures > 0 && !state.stopped
            }
            if failing { tablesDidChange() }
        }
    }
#endif
