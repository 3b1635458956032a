#if PostgreSQL
    internal import Logging
    internal import PostgresNIO
    internal import Synchronization

    extension ChangeListener {
        /// How long a read of the log may wait for its answer: unanswered, the connection is
        /// closed and the reconnects begin, so a network that falls silent (which TCP keepalive
        /// does not see when something on the way still answers for the server, a proxy or a
        /// NAT) is noticed within `checkInterval` + this.
        static let readLimit: Duration = .seconds(10)

        /// Reads the change log on `connection` at every wake-up in `signals`, and passes what
        /// it brings to the observers. Runs until `signals` ends or the task is cancelled;
        /// throws when a read fails or goes unanswered (the listen then ends, and the
        /// reconnects begin).
        func readLog(on connection: PostgresConnection, signals: AsyncStream<Void>) async throws {
            for await _ in signals {
                while try await readOnce(on: connection) {}
            }
        }

        /// One read of the log after the cursor; returns true when another should follow at
        /// once (the page was full).
        private func readOnce(on connection: PostgresConnection) async throws -> Bool {
            let step = state.withLock { state -> (after: Int64, gaps: [ClosedRange<Int64>], reconnected: Bool)? in
                // Idle (no live value): no query. The cursor stays where it is; the next read
                // with observers brings everything since (or says the log was pruned past it).
                guard state.phase == .listening, !state.registrations.isEmpty, let cursor = state.cursor else {
                    return nil
                }
                defer { state.reconnectPending = false }
                return (cursor.highest, cursor.openGaps, state.reconnectPending)
            }
            guard let (after, gaps, reconnected) = step else { return false }
            let page = try await answered { try await ChangeLog.page(after: after, gaps: gaps, on: connection) }
            let absorbed = state.withLock { state -> ChangeLogCursor.Outcome? in
                state.reads += 1
                state.lastAnswer = .now
                return state.cursor?.absorb(page)
            }
            guard var outcome = absorbed else { return false }
            if let check = outcome.startCheck {
                let late = try await answered {
                    try await ChangeLog.lateRows(through: check.head, of: check.xids, on: connection)
                }
                outcome.changes = late + outcome.changes
            }
            if outcome.pruned {
                logger.debug(
                    "PostgreSQL change feed fell behind the change log's pruning; reading every live value again",
                    metadata: [
                        "server": "\(serverDescription)", "after": "\(after)", "prunedThrough": "\(page.prunedThrough)",
                    ])
            }
            dispatch(outcome, reconnected: reconnected)
            return page.isFull
        }

        /// `body`'s answer, or, when none comes within `readLimit`, the connection closed and
        /// `HeartbeatMissed` thrown.
        private func answered<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
            let connection = state.withLock { $0.connection }
            guard let value = try await Deadline.answer(within: Self.readLimit, leavingWhenCancelled: true, body) else {
                await Self.closeQuickly(connection)
                throw HeartbeatMissed(limit: Self.readLimit)
            }
            return value
        }

        /// Passes `outcome` on: each observer whose tables it changed (every observer when
        /// changes may have been missed) runs again; after a reconnect, every observer then
        /// learns the listener is back.
        private func dispatch(_ outcome: ChangeLogCursor.Outcome, reconnected: Bool) {
            let tables = Set(outcome.changes.map(\.table))
            guard outcome.missed || !tables.isEmpty || reconnected else { return }
            let registrations = state.withLock { $0.registrations }
            if !outcome.changes.isEmpty {
                logger.trace(
                    "PostgreSQL change log read",
                    metadata: ["changes": "\(outcome.changes.count)", "tables": "\(tables.sorted())"])
            }
            let touched = registrations.filter { outcome.missed || !$0.value.tables.isDisjoint(with: tables) }
            guard reconnected else {
                for observer in Self.load(touched) { observer.tablesDidChange() }
                return
            }
            // Each observer learns it is back and, when the catch-up touched it, runs, in one
            // step: a run started before the observer learned would find the loss still shown,
            // hold its value back, and leave a second run for the reconnect.
            for (key, registration) in registrations.sorted(by: { $0.key < $1.key }) {
                guard let observer = registration.observer else { continue }
                observer.listenerDidReconnect(changed: touched[key] != nil)
            }
        }
    }

    /// The listening connection did not answer a read in time.
    struct HeartbeatMissed: Error, CustomStringConvertible {
        let limit: Duration

        var description: String {
            "the server did not answer a check within \(limit.components.seconds) s; the network may be down"
        }
    }
#endif
