#if PostgreSQL
    internal import Logging
    internal import PostgresNIO
    internal import ShelfStore
    internal import Synchronization

    /// A live query as the listener sees it: the tables it reads, and what to do when they change
    /// or when the listening connection comes and goes.
    protocol ChangeObserver: AnyObject, Sendable {
        /// A commit changed a table this query reads (or changes may have been missed): run again.
        func tablesDidChange()
        /// The listening connection is back. `changed`: the changes committed while it was away
        /// touched this query (or may have been missed), so it runs again; otherwise a query still
        /// showing the loss shows the value it had.
        func listenerDidReconnect(changed: Bool)
        /// The listening connection has been lost for its loss grace: publish `error`
        /// until the listener is back.
        func listenerWasLost(_ error: StoreError)
        /// The feed is closing: no more runs, no more retries.
        func stop()
    }

    /// The one listening connection of a `PostgresChangeFeed`, its reconnects, the change log's
    /// cursor, and the observers it wakes.
    ///
    /// One task (`run()`) owns the connection: it connects, sends `LISTEN shelf_changes`, and
    /// reads the change log (`ChangeLog.page`, on this connection) whenever woken: by a
    /// notification (shelf sends one after its own commits, `CommitWake`), by `wake()` (this
    /// process's commits), and once a second while observers are registered (other programs'
    /// commits, which send nothing). Wake-ups that arrive during a read fold into one more read.
    /// What a read brings goes to the observers of the tables it changed. When the connection
    /// fails, the task waits (50 ms, doubling to 5 s, reset once listening again) and starts
    /// over, as long as an observer is registered or waiting; the cursor is kept, so the first
    /// read after the reconnect brings exactly the changes committed meanwhile.
    ///
    /// **Epochs.** `epoch` grows every time the listening connection is lost.
    final class ChangeListener: Sendable {
        /// The channel the schema's triggers notify (`shelf_notify_change()`), with the changed
        /// table's name as the payload.
        static let channel = "shelf_changes"
        /// The `application_name` of the listening connection, unless the configuration names one:
        /// how an operator (or a test) finds it in `pg_stat_activity`.
        static let applicationName = "shelf-change-feed"
        /// The first delay before reconnecting; it doubles after each failed attempt.
        static let firstReconnectDelay: Duration = .milliseconds(50)
        /// The longest delay between reconnect attempts.
        static let maximumReconnectDelay: Duration = .seconds(5)
        /// How often the log is read while observers are registered, for commits of programs
        /// that send no wake-up (psql): one indexed read of no rows when nothing changed.
        static let checkInterval: Duration = .seconds(1)

        enum Phase {
            /// No connection and no task: nothing registered since the last one went.
            case idle
            /// The task is connecting, or waiting to reconnect.
            case connecting
            /// `LISTEN` was acknowledged; notifications arrive.
            case listening
            /// `stop()` was called; nothing starts again.
            case stopped
        }

        /// A registration. Copied under the lock, loaded outside it: loading a weak reference
        /// makes a strong one, and if that became the last one, the observer's deinit (which
        /// unregisters, taking the lock) would run inside the lock.
        struct Registration {
            weak var observer: (any ChangeObserver)?
            let tables: Set<String>
        }

        struct State {
            var phase = Phase.idle
            var epoch: UInt64 = 0
            var registrations: [UInt64: Registration] = [:]
            var nextRegistration: UInt64 = 0
            /// `live` calls waiting for `LISTEN` to be acknowledged; resumed with the epoch.
            var waiters: [UInt64: CheckedContinuation<UInt64, any Error>] = [:]
            var nextWaiter: UInt64 = 0
            var task: Task<Void, Never>?
            var connection: PostgresConnection?
            var nextConnectionID = 0
            /// Where this listener stands in the change log; made at the first `LISTEN`, kept
            /// across reconnects.
            var cursor: ChangeLogCursor?
            /// The first read after a reconnect tells every observer the listener is back.
            var reconnectPending = false
            /// Wakes the log reader of the current connection.
            var signal: AsyncStream<Void>.Continuation?
            /// Tells observers of a loss once the loss grace has passed without a reconnect.
            var grace: Task<Void, Never>?
            /// How many reads of the log have run (for tests).
            var reads = 0
            /// When the listening connection last heard from the server: `LISTEN` acknowledged,
            /// or a read of the log answered (one a second while observers are registered).
            var lastAnswer: ContinuousClock.Instant?
        }

        private let configuration: PostgresConnection.Configuration
        let logger: Logger
        let state = Mutex(State())

        /// How long the listening connection may be away before live values show the loss.
        let lossGrace: Duration

        init(configuration: PostgresConnection.Configuration, logger: Logger, lossGrace: Duration) {
            self.lossGrace = lossGrace
            var configuration = configuration
            if !configuration.options.additionalStartupParameters.contains(where: { $0.0 == "application_name" }) {
                configuration.options.additionalStartupParameters.append(("application_name", Self.applicationName))
            }
            self.configuration = configuration
            self.logger = logger
        }

        /// Where the server is, for messages: `host:port` or the socket path.
        var serverDescription: String {
            if let path = configuration.unixSocketPath { return path }
            return "\(configuration.host ?? "?"):\(configuration.port.map(String.init) ?? "?")"
        }

        /// How many observers are registered (released ones unregister in their deinit).
        var registrationCount: Int { state.withLock { $0.registrations.count } }

        // MARK: Registration

        /// Registers `observer` for `tables`; returns the key for `unregister(_:)`.
        func register(_ observer: some ChangeObserver, tables: Set<String>) -> UInt64 {
            state.withLock { state in
                state.nextRegistration += 1
                state.registrations[state.nextRegistration] = Registration(observer: observer, tables: tables)
                return state.nextRegistration
            }
        }

        func unregister(_ key: UInt64) {
            // The removed weak box is released outside the lock (it holds no strong reference,
            // but keep the discipline of releasing nothing inside it).
            let removed = state.withLock { $0.registrations.removeValue(forKey: key) }
            withExtendedLifetime(removed) {}
        }

        /// Waits until `LISTEN` is acknowledged on the listening connection (at once when it is),
        /// connecting first when nothing is connected; returns the epoch it saw.
        ///
        /// Waits for at most one connection attempt (bounded by the configuration's
        /// `connectTimeout`, after the reconnect delay in progress, if any): when it fails, throws a
        /// `StoreError` that says so (the listener keeps trying in the background while observers
        /// remain). Cancelling the calling task throws `CancellationError` at once.
        func waitUntilListening() async throws -> UInt64 {
            let key = state.withLock { state in
                state.nextWaiter += 1
                return state.nextWaiter
            }
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    enum Action {
                        case resume(UInt64)
                        case fail(any Error)
                        case wait
                    }
                    let action = state.withLock { state -> Action in
                        // Checked under the lock that `onCancel` takes: either it finds the waiter
                        // stored, or the flag (set before `onCancel` runs) is seen here.
                        if Task.isCancelled { return .fail(CancellationError()) }
                        switch state.phase {
                        case .listening:
                            return .resume(state.epoch)
                        case .stopped:
                            return .fail(Self.closedError)
                        case .connecting:
                            state.waiters[key] = continuation
                            return .wait
                        case .idle:
                            state.waiters[key] = continuation
                            state.phase = .connecting
                            state.task = Task { await self.run() }
                            return .wait
                        }
                    }
                    switch action {
                    case .resume(let epoch): continuation.resume(returning: epoch)
                    case .fail(let error): continuation.resume(throwing: error)
                    case .wait: break
                    }
                }
            } onCancel: {
                let waiter = state.withLock { $0.waiters.removeValue(forKey: key) }
                waiter?.resume(throwing: CancellationError())
            }
        }

        static let closedError = StoreError(
            .database,
            "the PostgreSQL change feed is closed, so live values no longer change; open the store again for "
                + "live values")

        // MARK: Stopping

        /// Stops listening: fails waiters, stops every observer's runs and retries, cancels the
        /// listening task (which closes its connection). Returns the task, to await its end.
        /// Idempotent.
        @discardableResult
        func stop() -> Task<Void, Never>? {
            let (waiters, registrations, task, connection, grace, wasRunning) = state.withLock { state in
                let wasRunning = state.phase != .stopped
                defer {
                    state.phase = .stopped
                    state.waiters = [:]
                    state.connection = nil
                    state.grace = nil
                    state.signal?.finish()
                    state.signal = nil
                }
                return (state.waiters, state.registrations, state.task, state.connection, state.grace, wasRunning)
            }
            for waiter in waiters.values { waiter.resume(throwing: Self.closedError) }
            for observer in Self.load(registrations) { observer.stop() }
            grace?.cancel()
            task?.cancel()
            // The task closes the connection it owns when it ends; closing it here too ends a
            // listen that is not cancellation-aware at once.
            if let connection { Task { try? await connection.close() } }
            if wasRunning {
                logger.debug("PostgreSQL change feed stopped", metadata: ["server": "\(serverDescription)"])
            }
            return task
        }

        // MARK: The listening task

        private func run() async {
            var delay = Self.firstReconnectDelay
            while !Task.isCancelled {
                guard let connectionID = beginAttempt() else { return }
                var opened: PostgresConnection?
                do {
                    // With keepalive: a network gone silent ends the listen within
                    // `KeepAlive.noticedWithin`, and the reconnects begin.
                    let connection = try await KeepAlive.connect(
                        configuration: configuration, id: connectionID, logger: logger)
                    opened = connection
                    guard adopt(connection) else {
                        try? await connection.close()
                        return
                    }
                    let subscribed = SubscribedFlag()
                    defer { if subscribed.isSet { delay = Self.firstReconnectDelay } }
                    // Wake-ups for the log reader: one pending at most, so a burst folds into
                    // one more read.
                    let (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                    defer { signal.finish() }
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            try await connection.listen(on: Self.channel) { notifications in
                                try await self.didSubscribe(on: connection, signal: signal)
                                subscribed.set()
                                for try await _ in notifications { signal.yield() }
                            }
                        }
                        group.addTask { try await self.readLog(on: connection, signals: signals) }
                        group.addTask {
                            while true {
                                try await Task.sleep(for: Self.checkInterval)
                                signal.yield()
                            }
                        }
                        // The first to end ends all: a listen that ended, or a read that found
                        // the connection dead (it closed it, which ends the listen).
                        try await group.next()
                        group.cancelAll()
                    }
                    // The sequence ends without an error only when the task is cancelled
                    // (close) or the connection closed cleanly; both end this listening.
                    if Task.isCancelled { break }
                    throw ListenerEnded()
                } catch {
                    await Self.closeQuickly(opened)
                    opened = nil
                    if Task.isCancelled || !didLose(error) { break }
                }
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    break  // cancelled: the feed is closing
                }
                delay = min(delay * 2, Self.maximumReconnectDelay)
            }
            // Stopped: the connection may still be open (cancelled in the middle of a listen).
            let connection = state.withLock { state in
                defer { state.connection = nil }
                return state.connection
            }
            await Self.closeQuickly(connection)
        }

        /// How long the listener waits for a connection it gives up to close.
        static let closeLimit: Duration = .milliseconds(500)

        /// Closes `connection`, waiting at most `closeLimit`: closing a connection the server has
        /// just terminated took 10 s at times under forced reconnects (postgres-nio 1.33), and
        /// the listener stayed deaf for that long (and its live values behind). A close still
        /// running then is left to end on its own; it has no result anyone needs.
        static func closeQuickly(_ connection: PostgresConnection?) async {
            guard let connection else { return }
            _ = try? await Deadline.answer(within: closeLimit) { try await connection.close() }
        }

        /// Decides whether to (re)connect: only while observers are registered or waiting.
        /// Returns the connection's ID, or nil when the task ends (the listener goes idle).
        private func beginAttempt() -> Int? {
            state.withLock { state in
                guard state.phase != .stopped else { return nil }
                guard !state.registrations.isEmpty || !state.waiters.isEmpty else {
                    // Nobody to tell: stop here, without timers. The next `live` starts again,
                    // from the log's head.
                    state.phase = .idle
                    state.task = nil
                    state.cursor = nil
                    return nil
                }
                state.phase = .connecting
                state.nextConnectionID += 1
                return state.nextConnectionID
            }
        }

        /// Keeps `connection` as the listening connection; false when the feed stopped meanwhile.
        private func adopt(_ connection: PostgresConnection) -> Bool {
            state.withLock { state in
                guard state.phase != .stopped else { return false }
                state.connection = connection
                return true
            }
        }

        /// `LISTEN` was acknowledged: place the cursor at the log's head (first time only),
        /// resume the waiters, and wake the reader (after a reconnect, it brings what was
        /// committed meanwhile).
        private func didSubscribe(on connection: PostgresConnection, signal: AsyncStream<Void>.Continuation)
            async throws
        {
            if state.withLock({ $0.cursor == nil }) {
                // Before any waiter reads its first value: changes after this point are passed on.
                let head = try await ChangeLog.head(on: connection)
                state.withLock { state in
                    if state.cursor == nil {
                        state.cursor = ChangeLogCursor(head: head)
                    }
                }
            }
            let subscribed = state.withLock {
                state -> (UInt64, [UInt64: CheckedContinuation<UInt64, any Error>], Int, Task<Void, Never>?)? in
                guard state.phase != .stopped else { return nil }
                state.phase = .listening
                state.lastAnswer = .now
                state.signal = signal
                if state.epoch > 0 { state.reconnectPending = true }
                defer {
                    state.waiters = [:]
                    state.grace = nil
                }
                return (state.epoch, state.waiters, state.registrations.count, state.grace)
            }
            guard let (epoch, waiters, registrations, grace) = subscribed else { return }
            grace?.cancel()
            logger.debug(
                "PostgreSQL change feed listening", metadata: ["server": "\(serverDescription)", "epoch": "\(epoch)"])
            if epoch > 0 {
                logger.debug(
                    "PostgreSQL change feed reconnected; catching up from the change log",
                    metadata: ["server": "\(serverDescription)", "queries": "\(registrations)"])
            }
            for waiter in waiters.values { waiter.resume(returning: epoch) }
            signal.yield()
        }

        /// Wakes the log reader: a commit of this process (or anything else) may have logged changes.
        /// Does nothing while not listening (the reconnect reads the log anyway).
        func wake() {
            state.withLock { $0.signal }?.yield()
        }

        /// How many times the log has been read (for tests).
        var logReads: Int { state.withLock { $0.reads } }

        /// While the listening connection is lost (it went unanswered, failed, or is being made
        /// again): when it last heard from the server, which is when the server fell silent to
        /// within `checkInterval`; nil while listening, or before it ever heard from it. The loss
        /// is noticed only `readLimit` later, and told to the observers `lossGrace` after that.
        var silentSince: ContinuousClock.Instant? {
            state.withLock { $0.phase == .listening ? nil : $0.lastAnswer }
        }

        /// The listening connection failed, or could not be made. Returns false when the feed
        /// stopped meanwhile (the task ends).
        private func didLose(_ error: any Error) -> Bool {
            let reason = PostgresChangeFeed.describe(error)
            let failure = StoreError(
                .database,
                "the connection to the PostgreSQL server at \(serverDescription) that watches for changes was "
                    + "lost (\(reason)); it is being re-established, and this value is read again as soon as it is")
            let lost = state.withLock {
                state -> (wasListening: Bool, [UInt64: CheckedContinuation<UInt64, any Error>])? in
                guard state.phase != .stopped else { return nil }
                let wasListening = state.phase == .listening
                if wasListening {
                    state.epoch += 1
                    let epoch = state.epoch
                    // Made under the lock, so `stop` and `didSubscribe` always find it recorded.
                    let lossGrace = self.lossGrace
                    state.grace = Task { [weak self] in
                        do {
                            try await Task.sleep(for: lossGrace)
                        } catch {
                            return  // cancelled: listening again, or stopped
                        }
                        self?.reportLoss(failure, epoch: epoch)
                    }
                }
                state.phase = .connecting
                state.connection = nil
                state.signal = nil
                defer { state.waiters = [:] }
                return (wasListening, state.waiters)
            }
            guard let (wasListening, waiters) = lost else { return false }
            if !waiters.isEmpty {
                let failure = StoreError(
                    .database,
                    "could not listen for changes on the PostgreSQL server at \(serverDescription) (\(reason)); "
                        + "check that the server is running and reachable and that the credentials are right")
                for waiter in waiters.values { waiter.resume(throwing: failure) }
            }
            if wasListening {
                logger.debug(
                    "PostgreSQL change feed lost its connection; reconnecting",
                    metadata: ["server": "\(serverDescription)", "reason": "\(reason)"])
            } else {
                logger.debug(
                    "PostgreSQL change feed could not connect; retrying",
                    metadata: ["server": "\(serverDescription)", "reason": "\(reason)"])
            }
            return true
        }

        /// The loss grace passed since the loss of `epoch`'s connection: unless listening again,
        /// every live value shows `failure`.
        private func reportLoss(_ failure: StoreError, epoch: UInt64) {
            let registrations = state.withLock { state -> [UInt64: Registration] in
                guard state.phase != .listening, state.phase != .stopped, state.epoch == epoch else { return [:] }
                return state.registrations
            }
            let observers = Self.load(registrations)
            for observer in observers { observer.listenerWasLost(failure) }
            // Listening again while they were told: the reconnect's own word may have reached
            // them first, and this loss would then stay shown (and hold their runs back) until
            // the next reconnect. Tell them again; a second reconnect notice only runs them.
            guard state.withLock({ $0.phase == .listening }) else { return }
            for observer in observers { observer.listenerDidReconnect(changed: true) }
        }

        /// The observers still alive among `registrations`, loaded outside the lock.
        static func load(_ registrations: [UInt64: Registration]) -> [any ChangeObserver] {
            registrations.sorted { $0.key < $1.key }.compactMap { $0.value.observer }
        }
    }

    /// The notification sequence ended although the connection was not closed by the feed.
    private struct ListenerEnded: Error, CustomStringConvertible {
        var description: String { "the server ended the notification stream" }
    }

    /// Set once `LISTEN` was acknowledged on a connection.
    private final class SubscribedFlag: Sendable {
        private let value = Atomic<Bool>(false)

        func set() { value.store(true, ordering: .relaxed) }

        var isSet: Bool { value.load(ordering: .relaxed) }
    }
#endif
