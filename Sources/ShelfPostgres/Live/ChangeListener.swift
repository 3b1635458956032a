#if PostgreSQL
    internal import Logging
    internal import PostgresNIO
    internal import ShelfStore
    internal import Synchronization

    /// A live query as the listener sees it: the tables it reads, and what to do when they change
    /// or when the listening connection comes and goes.
    protocol ChangeObserver: AnyObject, Sendable {
        /// A commit changed a table this query reads (or a reconnect may have hidden one).
        func tablesDidChange()
        /// The listening connection was re-established: re-read, a commit may have been missed.
        func listenerDidReconnect()
        /// The listening connection was lost: publish `error` until the listener is back.
        func listenerWasLost(_ error: StoreError)
        /// The feed is closing: no more runs, no more retries.
        func stop()
    }

    /// The one listening connection of a `PostgresChangeFeed`, its reconnects, and the observers
    /// it wakes.
    ///
    /// One task (`run()`) owns the connection: it connects, sends `LISTEN shelf_changes`, reads
    /// notifications until the connection fails, then waits (50 ms, doubling to 5 s, reset once
    /// listening again) and starts over, as long as an observer is registered or waiting. Idle,
    /// it awaits the next notification: no timer, no query.
    ///
    /// **Epochs.** `epoch` grows every time the listening connection is lost. A run reads it when
    /// it starts and publishes only while the listener is still listening in the same epoch, so a
    /// value read around a disconnection never hides the failure that says so; the reconnect
    /// re-runs every query instead.
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

        private enum Phase {
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
        private struct Registration {
            weak var observer: (any ChangeObserver)?
            let tables: Set<String>
        }

        private struct State {
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
        }

        private let configuration: PostgresConnection.Configuration
        private let logger: Logger
        private let state = Mutex(State())

        init(configuration: PostgresConnection.Configuration, logger: Logger) {
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

        /// The epoch, when listening now; nil while disconnected or stopped.
        var listeningEpoch: UInt64? {
            state.withLock { $0.phase == .listening ? $0.epoch : nil }
        }

        /// True while listening in `epoch`: nothing was missed since a run that started in it.
        func isListening(in epoch: UInt64) -> Bool {
            state.withLock { $0.phase == .listening && $0.epoch == epoch }
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
            let (waiters, registrations, task, connection, wasRunning) = state.withLock { state in
                let wasRunning = state.phase != .stopped
                defer {
                    state.phase = .stopped
                    state.waiters = [:]
                    state.connection = nil
                }
                return (state.waiters, state.registrations, state.task, state.connection, wasRunning)
            }
            for waiter in waiters.values { waiter.resume(throwing: Self.closedError) }
            for observer in Self.load(registrations) { observer.stop() }
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
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            try await connection.listen(on: Self.channel) { notifications in
                                self.didSubscribe()
                                subscribed.set()
                                for try await notification in notifications {
                                    self.didReceive(table: notification.payload)
                                }
                            }
                        }
                        group.addTask { try await Self.heartbeat(on: connection) }
                        // The first to end ends both: a listen that ended, or a check that
                        // found the connection dead (it closed it, which ends the listen).
                        try await group.next()
                        group.cancelAll()
                    }
                    // The sequence ends without an error only when the task is cancelled
                    // (close) or the connection closed cleanly; both end this listening.
                    if Task.isCancelled { break }
                    throw ListenerEnded()
                } catch {
                    if let opened { try? await opened.close() }
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
            try? await connection?.close()
        }

        /// How often the listening connection is checked while idle (`heartbeat`).
        static let heartbeatInterval: Duration = .seconds(10)
        /// How long a check may wait for its answer.
        static let heartbeatLimit: Duration = .seconds(10)

        /// Checks `connection` every `heartbeatInterval` with `SELECT 1` (one round trip of a
        /// few dozen bytes): a check not answered within `heartbeatLimit` closes it and throws,
        /// so a network gone silent (which TCP keepalive does not see when something on the way
        /// still answers for the server, a proxy or a NAT) is noticed within 20 s; the listen
        /// then ends and the reconnects begin. Runs until cancelled or failed.
        private static func heartbeat(on connection: PostgresConnection) async throws {
            while true {
                try await Task.sleep(for: heartbeatInterval)
                let answered = try await Deadline.answer(within: heartbeatLimit) {
                    _ = try await connection.query("SELECT 1", logger: .silent).collect()
                    return true
                }
                if answered == nil {
                    try? await connection.close()
                    throw HeartbeatMissed(limit: heartbeatLimit)
                }
            }
        }

        /// Decides whether to (re)connect: only while observers are registered or waiting.
        /// Returns the connection's ID, or nil when the task ends (the listener goes idle).
        private func beginAttempt() -> Int? {
            state.withLock { state in
                guard state.phase != .stopped else { return nil }
                guard !state.registrations.isEmpty || !state.waiters.isEmpty else {
                    // Nobody to tell: stop here, without timers. The next `live` starts again.
                    state.phase = .idle
                    state.task = nil
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

        /// `LISTEN` was acknowledged: resume the waiters, and re-run every started query (a commit
        /// may have happened while nobody listened).
        private func didSubscribe() {
            let subscribed = state.withLock {
                state -> (UInt64, [UInt64: CheckedContinuation<UInt64, any Error>], [UInt64: Registration])? in
                guard state.phase != .stopped else { return nil }
                state.phase = .listening
                defer { state.waiters = [:] }
                return (state.epoch, state.waiters, state.registrations)
            }
            guard let (epoch, waiters, registrations) = subscribed else { return }
            logger.debug(
                "PostgreSQL change feed listening", metadata: ["server": "\(serverDescription)", "epoch": "\(epoch)"])
            if epoch > 0 {
                logger.debug(
                    "PostgreSQL change feed reconnected; refreshing live values",
                    metadata: ["server": "\(serverDescription)", "queries": "\(registrations.count)"])
            }
            for waiter in waiters.values { waiter.resume(returning: epoch) }
            for observer in Self.load(registrations) { observer.listenerDidReconnect() }
        }

        private func didReceive(table: String) {
            let registrations = state.withLock { state in
                state.registrations.filter { $0.value.tables.contains(table) }
            }
            logger.trace("PostgreSQL change notification", metadata: ["table": "\(table)"])
            for observer in Self.load(registrations) { observer.tablesDidChange() }
        }

        /// The listening connection failed, or could not be made. Returns false when the feed
        /// stopped meanwhile (the task ends).
        private func didLose(_ error: any Error) -> Bool {
            let lost = state.withLock {
                state -> (wasListening: Bool, [UInt64: CheckedContinuation<UInt64, any Error>], [UInt64: Registration])?
                in
                guard state.phase != .stopped else { return nil }
                let wasListening = state.phase == .listening
                if wasListening { state.epoch += 1 }
                state.phase = .connecting
                state.connection = nil
                defer { state.waiters = [:] }
                return (wasListening, state.waiters, state.registrations)
            }
            guard let (wasListening, waiters, registrations) = lost else { return false }
            let reason = PostgresChangeFeed.describe(error)
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
                let failure = StoreError(
                    .database,
                    "the connection to the PostgreSQL server at \(serverDescription) that watches for changes was "
                        + "lost (\(reason)); it is being re-established, and this value is read again as soon as it is")
                for observer in Self.load(registrations) { observer.listenerWasLost(failure) }
            } else {
                logger.debug(
                    "PostgreSQL change feed could not connect; retrying",
                    metadata: ["server": "\(serverDescription)", "reason": "\(reason)"])
            }
            return true
        }

        /// The observers still alive among `registrations`, loaded outside the lock.
        private static func load(_ registrations: [UInt64: Registration]) -> [any ChangeObserver] {
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

    /// The listening connection did not answer a check in time.
    struct HeartbeatMissed: Error, CustomStringConvertible {
        let limit: Duration

        var description: String {
            "the server did not answer a check within \(limit.components.seconds) s; the network may be down"
        }
    }
#endif
