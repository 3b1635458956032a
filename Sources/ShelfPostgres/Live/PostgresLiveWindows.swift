#if PostgreSQL
    internal import Logging
    internal import PostgresNIO
    internal import ShelfReactive
    internal import ShelfStore
    internal import Synchronization

    /// The live item windows of one PostgreSQL store: shared by key (`LiveWindowRegistry`), kept
    /// up to date from the change log, read again only when a change can affect them.
    ///
    /// **What a window knows.** Each entry is exact in one snapshot `S` (its *mark*): the
    /// snapshot's transactions (`TransactionSnapshot`) and a *bound*, a seq up to which every
    /// change is visible in `S` or never commits (`ChangeLogWatermark`). The changes a later
    /// snapshot `S'` holds that `S` does not are then exactly the log rows of `S'` after the
    /// bound whose transaction `S` does not see: commits out of seq order are neither missed
    /// nor counted twice.
    ///
    /// **When.** One observer of the change feed (`WindowSubscription`, for `items` and
    /// `users`), registered while any window lives: a read of the log that brought changes
    /// schedules one pass; changes during a pass make one more (never a queue). Writers never
    /// wait for passes.
    ///
    /// **A pass.** In one `REPEATABLE READ` transaction on a pooled connection: the log after
    /// the lowest bound, then, for each window, `LiveWindowJudge` on the changes its snapshot
    /// did not see (merged per row), with the rows it asks about read once per pass for every
    /// window (`id = ANY(…)`, and one statement answering which changed rows every distinct
    /// query with words selects), and counts read again in that snapshot when only the count
    /// is unknown. Windows that must be read again are read after it, on up to
    /// `rereadWorkers` tasks, each in a snapshot of its own; passes leave them alone meanwhile.
    /// A window publishes only when it differs. A log pruned past a window, a truncate, or
    /// more than `batchLimit` changes at once: every window is read in full (debug log).
    ///
    /// **Failures.** A failed pass publishes the failure once to every window and retries after
    /// 100 ms, 300 ms, 1 s, then every 3 s; the windows stay exact in their snapshots, so the
    /// next pass that succeeds publishes them again without reading them. A window whose own
    /// read failed is read again by the next pass. While the feed's connection is lost (past
    /// its grace) every window shows that; when it is back, one pass brings what was committed
    /// meanwhile, and windows nothing touched show their value again without a read.
    final class PostgresLiveWindows: Sendable {
        /// What a window's value is exact in (see the type's documentation).
        struct Mark: Sendable, Hashable {
            var transactions: TransactionSnapshot
            var bound: Int64
        }

        struct State {
            var marks: [ObjectIdentifier: Mark] = [:]
            /// Every seq up to its position is visible in the last snapshot a pass read, or
            /// never commits.
            var watermark: ChangeLogWatermark?
            var running = false
            var dirty = false
            /// Passes started so far: a window opened while one ran is judged by another.
            var starts = 0
            var rereading: Set<ObjectIdentifier> = []
            /// Windows whose own read failed: the next pass reads them again.
            var broken: Set<ObjectIdentifier> = []
            var lost = false
            var stopped = false
            var failures = 0
            var retry: Task<Void, Never>?
            /// A pass to come, for windows whose snapshots wait to be settled (`settleSoon`).
            var settling: Task<Void, Never>?
            var settleDelay = PostgresLiveWindows.firstSettleDelay
            weak var subscription: WindowSubscription?
        }

        /// More changes than this in one pass: every window is read in full.
        static let batchLimit = 4096
        /// At most this many windows are read again at once.
        static let rereadWorkers = 4
        /// How soon a pass follows one that left a window's snapshot unsettled (a transaction
        /// still in progress holds a seq below the log's head); doubling up to the ceiling
        /// while they stay so.
        static let firstSettleDelay: Duration = .milliseconds(2)
        static let settleDelayCeiling: Duration = .milliseconds(100)

        let registry = LiveWindowRegistry()
        private let openings = LiveWindowOpenings()
        let state = Mutex(State())
        let pool: PostgresPool
        let listener: ChangeListener
        /// Reads of a whole window or of a count (first reads included).
        let runs: RunCounter
        /// Reads of changed rows only (the rows, and which queries select them), once per pass.
        let probes = RunCounter()
        /// Passes that read every window because the log no longer held what they needed.
        let fullPasses = RunCounter()

        init(pool: PostgresPool, listener: ChangeListener, runs: RunCounter) {
            self.pool = pool
            self.listener = listener
            self.runs = runs
        }

        /// The shared entry of `key`, opened with a first read unless one exists; callers
        /// opening one key at the same moment share one first read (`LiveWindowOpenings`: a
        /// thousand clients of a service connecting at once are one read per distinct query,
        /// not a thousand on the pool).
        func entry(for key: LiveWindowKey) async throws -> LiveWindowEntry {
            try await openings.entry(for: key, in: registry) { try await firstEntry(for: key) }
        }

        /// `key`'s entry from a first read (`entry(for:)` makes sure one caller reads a key at a
        /// time). The feed listens before the read, so no commit after it is missed.
        private func firstEntry(for key: LiveWindowKey) async throws -> LiveWindowEntry {
            if let existing = registry.entry(for: key) { return existing }
            let subscription = subscribe()
            _ = try await listener.waitUntilListening()
            let (startsBefore, runningBefore, watermark) = state.withLock { ($0.starts, $0.running, $0.watermark) }
            let first = try await read(key, watermark: watermark)
            let entry = LiveWindowEntry(
                key: key, window: first.window, position: first.position, settled: first.settled,
                retaining: subscription)
            // The mark before the entry is shared: a pass that finds the entry finds the mark
            // its window is exact in (or none, and reads it again), never an older one set
            // after a newer read.
            state.withLock { $0.marks[ObjectIdentifier(entry)] = first.mark }
            let shared = registry.insert(entry)
            let behind = state.withLock { state -> Bool in
                if shared !== entry { state.marks[ObjectIdentifier(entry)] = nil }
                if state.watermark == nil { state.watermark = first.watermark }
                return runningBefore || state.running || state.starts != startsBefore
            }
            // A pass that read the log after this read did not judge the new window.
            if behind { schedulePass() }
            return shared
        }

        /// The subscription every window retains, made (and registered with the feed) when
        /// none lives: the feed reads nothing for windows once the last one is released.
        private func subscribe() -> WindowSubscription {
            if let existing = state.withLock({ $0.subscription }) { return existing }
            let made = WindowSubscription(windows: self)
            let kept = state.withLock { state -> WindowSubscription? in
                if let existing = state.subscription { return existing }
                state.subscription = made
                return nil
            }
            guard let kept else {
                made.register()
                return made
            }
            return kept
        }

        /// A window read in full, in one snapshot, with its mark.
        struct FullRead: Sendable {
            let window: ItemWindow
            let position: Int64
            /// Every seq up to `position` is visible in the read's snapshot or never commits.
            let settled: Bool
            let mark: Mark
            let watermark: ChangeLogWatermark
        }

        /// Reads `key`'s window and count, and the log after `watermark` (the last pass's; the
        /// log's recent tail when there is none), in one `REPEATABLE READ` snapshot.
        func read(_ key: LiveWindowKey, watermark: ChangeLogWatermark?) async throws -> FullRead {
            runs.increment()
            // Built at each read: ages (`created:<7d`) count back from the read's moment.
            let page = try key.query.postgresPage(cursor: key.anchor, backward: false, limit: key.limit)
            let count = key.query.postgresCount()
            return try await pool.transaction(isolation: "REPEATABLE READ READ ONLY", retryable: true) { connection in
                let items = try await PreparedPages.items(page, of: key.query, on: connection)
                let totals = try await connection.query(count, logger: .silent).all((Int64).self)
                let log = try await ChangeLog.windowRead(
                    after: watermark?.position, limit: Int(ChangeLog.startWindow), on: connection)
                var advanced =
                    watermark ?? ChangeLogWatermark(position: max(0, log.head - ChangeLog.startWindow))
                advanced.advance(log.watermark)
                return FullRead(
                    window: ItemWindow(items: items, totalCount: Int(totals.first ?? 0)), position: log.head,
                    settled: !log.isFull && advanced.position >= log.head,
                    mark: Mark(transactions: log.transactions, bound: advanced.position), watermark: advanced)
            }
        }

        // MARK: Scheduling

        /// Runs a pass now, or one more after the one running. While the feed's loss is shown,
        /// the pass waits for the reconnect.
        func schedulePass() {
            let start = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                if state.running || state.lost {
                    state.dirty = true
                    return false
                }
                state.running = true
                state.starts += 1
                return true
            }
            // Not forgotten: a pass publishes its failure on every window and schedules its retry.
            if start { Task { await self.runPasses() } }
        }

        private func runPasses() async {
            while true {
                await pass()
                let again = state.withLock { state -> Bool in
                    if state.dirty, !state.stopped, !state.lost {
                        state.dirty = false
                        state.starts += 1
                        return true
                    }
                    state.running = false
                    return false
                }
                if !again { return }
            }
        }

        /// Publishes `error` on `entries` and retries passes after 100 ms, 300 ms, 1 s, then
        /// every 3 s while they fail.
        /// Once the feed is closed, windows keep their last value: nothing is published.
        func failed(_ entries: [LiveWindowEntry], _ error: any Error) {
            guard !state.withLock({ $0.stopped }) else { return }
            let failure = PostgresChangeFeed.translate(error)
            for entry in entries { entry.fail(failure) }
            state.withLock { state in
                state.failures += 1
                guard state.retry == nil, !state.stopped else { return }
                let delays = PostgresLiveQuery<Int>.retryDelays
                let delay = delays[min(state.failures, delays.count) - 1]
                // Made under the lock, so `stop` always finds it recorded.
                state.retry = Task { [weak self] in
                    do {
                        try await Task.sleep(for: delay)
                    } catch {
                        return  // cancelled: the feed is closing
                    }
                    self?.state.withLock { $0.retry = nil }
                    self?.schedulePass()
                }
            }
        }

        // MARK: The feed's news

        /// The feed's connection has been lost past its grace: every window shows `error`, and
        /// passes wait for the reconnect.
        func listenerWasLost(_ error: StoreError) {
            state.withLock { $0.lost = true }
            for entry in registry.liveEntries() { entry.fail(error) }
        }

        /// The feed is back: one pass brings what was committed meanwhile (windows it does not
        /// touch publish their value again, without a read).
        func listenerDidReconnect() {
            state.withLock { $0.lost = false }
            schedulePass()
        }

        /// The feed is closing: no more passes or retries.
        func stop() {
            let (retry, settling) = state.withLock { state -> (Task<Void, Never>?, Task<Void, Never>?) in
                state.stopped = true
                defer {
                    state.retry = nil
                    state.settling = nil
                }
                return (state.retry, state.settling)
            }
            retry?.cancel()
            settling?.cancel()
        }

        // MARK: Positions

        /// `entry`'s snapshots, once a settled window is published on them: passes follow
        /// each other (`settleSoon`) until it is. Throws only when cancelled.
        func settledSnapshots(of entry: LiveWindowEntry) async throws
            -> Property<LiveResult<LiveSnapshot<ItemWindow>>>
        {
            entry.wantSnapshots()
            var delay = Self.firstSettleDelay
            while !entry.isSettled, !entry.isFailing {
                schedulePass()
                try await Task.sleep(for: delay)
                delay = min(delay * 2, Self.settleDelayCeiling)
            }
            return entry.snapshotProperty
        }

        /// After a pass: when a window someone reads with positions is not settled, another
        /// pass follows after a short delay (2 ms, doubling to 100 ms while they stay so).
        func settleSoon(_ entries: [LiveWindowEntry]) {
            let waiting = entries.contains { $0.wantsSnapshots && !$0.isSettled && !$0.isFailing }
            state.withLock { state in
                guard waiting else {
                    state.settleDelay = Self.firstSettleDelay
                    return
                }
                guard state.settling == nil, !state.stopped else { return }
                let delay = state.settleDelay
                state.settleDelay = min(delay * 2, Self.settleDelayCeiling)
                // Made under the lock, so `stop` always finds it recorded. Not forgotten: it
                // only sleeps (a cancellation ends it) and schedules a pass.
                state.settling = Task { [weak self] in
                    do {
                        try await Task.sleep(for: delay)
                    } catch {
                        return
                    }
                    self?.state.withLock { $0.settling = nil }
                    self?.schedulePass()
                }
            }
        }
    }

    /// The live windows' registration with the change feed. Every window retains it; when the
    /// last is released, it unregisters, and the feed stops reading the log for them.
    final class WindowSubscription: ChangeObserver {
        private let windows: PostgresLiveWindows
        private let key = Mutex<UInt64?>(nil)

        init(windows: PostgresLiveWindows) {
            self.windows = windows
        }

        func register() {
            let registered = windows.listener.register(self, tables: ["items", "users"])
            key.withLock { $0 = registered }
        }

        deinit {
            if let registered = key.withLock({ $0 }) { windows.listener.unregister(registered) }
        }

        func tablesDidChange() { windows.schedulePass() }

        func listenerDidReconnect(changed: Bool) { windows.listenerDidReconnect() }

        func listenerWasLost(_ error: StoreError) { windows.listenerWasLost(error) }

        func stop() { windows.stop() }
    }
#endif
