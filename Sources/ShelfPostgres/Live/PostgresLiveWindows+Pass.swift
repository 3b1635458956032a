#if PostgreSQL
    internal import Logging
    internal import PostgresNIO
    internal import ShelfStore
    internal import Synchronization

    extension PostgresLiveWindows {
        /// Where a pass's judgement lands for one entry.
        enum Outcome: Sendable {
            case publish(LiveWindowEntry, ItemWindow)
            case reread(LiveWindowEntry)
        }

        /// What a pass found, from one snapshot.
        struct PassResult: Sendable {
            var outcomes: [Outcome]
            let watermark: ChangeLogWatermark
            let mark: Mark
            let head: Int64
            /// Every seq up to `head` is visible in the pass's snapshot or never commits.
            let settled: Bool
        }

        /// One pass over every window that is not being read again (see the type's
        /// documentation).
        func pass() async {
            let (busy, broken, marks, watermark) = state.withLock {
                ($0.rereading, $0.broken, $0.marks, $0.watermark)
            }
            let entries = registry.liveEntries().filter { !busy.contains(ObjectIdentifier($0)) }
            var judged: [(LiveWindowEntry, Mark)] = []
            var rereads: [LiveWindowEntry] = []
            for entry in entries {
                let id = ObjectIdentifier(entry)
                if let mark = marks[id], !broken.contains(id) {
                    judged.append((entry, mark))
                } else {
                    rereads.append(entry)
                }
            }
            if let from = judged.lazy.map(\.1.bound).min() {
                let judgedNow = judged
                do {
                    // A pass that fails tries again: it waits for a connection however busy the pool.
                    let result = try await PostgresPool.$waitsWithoutLimit.withValue(true) {
                        try await pool.transaction(isolation: "REPEATABLE READ READ ONLY", retryable: true) {
                            connection in
                            try await self.judge(judgedNow, after: from, watermark: watermark, on: connection)
                        }
                    }
                    state.withLock { state in
                        state.failures = 0
                        state.watermark = result.watermark
                        for case .publish(let entry, _) in result.outcomes {
                            state.marks[ObjectIdentifier(entry)] = result.mark
                        }
                        // Released windows leave no mark behind; a window opened during the
                        // pass (its mark set since it began) keeps its own.
                        let alive = Set(entries.map(ObjectIdentifier.init))
                        state.marks = state.marks.filter { id, mark in
                            alive.contains(id) || busy.contains(id) || marks[id] != mark
                        }
                    }
                    let retry = state.withLock { state -> Task<Void, Never>? in
                        defer { state.retry = nil }
                        return state.retry
                    }
                    retry?.cancel()
                    for outcome in result.outcomes {
                        switch outcome {
                        case .publish(let entry, let window):
                            entry.update(window, position: result.head, settled: result.settled)
                        case .reread(let entry): rereads.append(entry)
                        }
                    }
                } catch {
                    failed(judged.map(\.0), error)
                    return
                }
            }
            startRereads(rereads)
            settleSoon(entries)
        }

        /// The outcome for every window in `judged`, in the snapshot of `connection`'s
        /// transaction: the log after `from` (the lowest bound), the changed rows, and the
        /// counts that must be read again.
        func judge(
            _ judged: [(LiveWindowEntry, Mark)], after from: Int64, watermark: ChangeLogWatermark?,
            on connection: PostgresConnection
        ) async throws -> PassResult {
            let read = try await ChangeLog.windowRead(after: from, limit: Self.batchLimit, on: connection)
            var advanced = watermark ?? ChangeLogWatermark(position: from)
            advanced.advance(read.watermark)
            let mark = Mark(transactions: read.transactions, bound: advanced.position)
            let unreadable = read.rows.contains { row in
                (row.change.table == "items" && row.change.itemChange == nil)
                    || (row.change.table == "users" && row.change.operation == .truncate)
            }
            if read.isFull || read.watermark.prunedThrough > from || unreadable {
                fullPasses.increment()
                listener.logger.debug(
                    "live windows on PostgreSQL read in full: the change log no longer holds every change after \(from), holds more than \(Self.batchLimit) at once, or an emptied table; \(judged.count) windows read again",
                    metadata: ["server": "\(listener.serverDescription)"])
                return PassResult(
                    outcomes: judged.map { .reread($0.0) }, watermark: advanced, mark: mark, head: read.head,
                    settled: false)
            }
            // The changes each mark's snapshot did not see, merged per row.
            var changesByMark: [Mark: (items: [ItemChange], users: Bool)] = [:]
            for (_, entryMark) in judged where changesByMark[entryMark] == nil {
                var items: [ItemChange] = []
                var users = false
                for row in read.rows where row.change.seq > entryMark.bound && !entryMark.transactions.sees(row.xid) {
                    if let change = row.change.itemChange {
                        items.append(change)
                    } else if row.change.table == "users" {
                        users = true
                    }
                }
                changesByMark[entryMark] = (ItemChange.net(items), users)
            }
            let (rows, matches) = try await probe(judged, changesByMark, on: connection)
            var counts: [ItemQuery: Int] = [:]
            var outcomes: [Outcome] = []
            for (entry, entryMark) in judged {
                let (changes, usersChanged) = changesByMark[entryMark] ?? ([], false)
                let query = entry.key.query
                let verdict = entry.judge.judge(
                    entry.window, changes: changes, usersChanged: usersChanged,
                    matches: { matches[query]?.contains($0) ?? false }, item: { rows[$0] })
                switch verdict {
                case .unchanged:
                    outcomes.append(.publish(entry, entry.window))
                case .updated(let window):
                    outcomes.append(.publish(entry, window))
                case .countChanged(let items):
                    let count: Int
                    if let known = counts[query] {
                        count = known
                    } else {
                        runs.increment()
                        let totals = try await connection.query(query.postgresCount(), logger: .silent).all(
                            (Int64).self)
                        count = Int(totals.first ?? 0)
                        counts[query] = count
                    }
                    outcomes.append(.publish(entry, ItemWindow(items: items, totalCount: count)))
                case .rerun:
                    outcomes.append(.reread(entry))
                }
            }
            return PassResult(
                outcomes: outcomes, watermark: advanced, mark: mark, head: read.head,
                settled: advanced.position >= read.head)
        }

        /// The changed rows that exist now, by ID, and for every distinct query with words or
        /// owner prefixes the changed rows it selects: two statements at most, whatever the
        /// number of windows.
        private func probe(
            _ judged: [(LiveWindowEntry, Mark)], _ changesByMark: [Mark: (items: [ItemChange], users: Bool)],
            on connection: PostgresConnection
        ) async throws -> (rows: [Item.ID: Item], matches: [ItemQuery: Set<Item.ID>]) {
            var present = Set<Item.ID>()
            for (items, _) in changesByMark.values {
                for change in items where change.after != nil { present.insert(change.id) }
            }
            var rows: [Item.ID: Item] = [:]
            if !present.isEmpty {
                probes.increment()
                var bindings = PostgresBindings()
                bindings.append(present.map(\.rawValue))
                let sql = PostgresQuery(
                    unsafeSQL: "SELECT \(ItemQuery.postgresItemColumns) FROM items WHERE id = ANY($1)",
                    binds: bindings)
                for item in try await PostgresItemRepository.items(sql, on: connection) { rows[item.id] = item }
            }
            // Which candidates each query selects, all queries in one statement.
            var candidates: [ItemQuery: Set<Item.ID>] = [:]
            for (entry, entryMark) in judged where entry.judge.filter.needsProbe {
                let changes = changesByMark[entryMark]?.items ?? []
                let ids = entry.judge.probeCandidates(changes).filter { rows[$0] != nil }
                if !ids.isEmpty { candidates[entry.key.query, default: []].formUnion(ids) }
            }
            var matches: [ItemQuery: Set<Item.ID>] = [:]
            guard !candidates.isEmpty else { return (rows, matches) }
            probes.increment()
            let queries = Array(candidates.keys)
            var bindings = PostgresBindings()
            var parts: [String] = []
            for (index, query) in queries.enumerated() {
                bindings.append(candidates[query, default: []].map(\.rawValue))
                let ids = "$\(bindings.count)"
                let clauses = query.postgresFilter(into: &bindings)
                parts.append(
                    "SELECT \(index)::bigint, id FROM items WHERE id = ANY(\(ids))"
                        + clauses.map { " AND (\($0))" }.joined())
            }
            let sql = PostgresQuery(unsafeSQL: parts.joined(separator: " UNION ALL "), binds: bindings)
            for try await (index, id) in try await connection.query(sql, logger: .silent).decode((Int64, Int64).self) {
                matches[queries[Int(index)], default: []].insert(Item.ID(id))
            }
            return (rows, matches)
        }

        /// Reads `entries` again, on up to `rereadWorkers` tasks, each in a snapshot of its own;
        /// passes leave them alone meanwhile, and one more pass follows (changes committed after
        /// a read were not judged for it). A failed read publishes its failure on the window and
        /// makes the next pass (or retry) read it again.
        func startRereads(_ entries: [LiveWindowEntry]) {
            guard !entries.isEmpty else { return }
            state.withLock { state in
                for entry in entries { state.rereading.insert(ObjectIdentifier(entry)) }
            }
            let workers = min(entries.count, Self.rereadWorkers)
            // Not forgotten: each failure is published on its window and retried.
            Task {
                let failures = await withTaskGroup(of: Int.self) { group in
                    for worker in 0..<workers {
                        group.addTask {
                            var failures = 0
                            for index in stride(from: worker, to: entries.count, by: workers) {
                                if await !self.reread(entries[index]) { failures += 1 }
                            }
                            return failures
                        }
                    }
                    return await group.reduce(0, +)
                }
                if failures == 0 { self.schedulePass() }
            }
        }

        /// Reads `entry` again; false when the read failed (published on the entry).
        private func reread(_ entry: LiveWindowEntry) async -> Bool {
            let id = ObjectIdentifier(entry)
            let watermark = state.withLock { $0.watermark }
            do {
                let read = try await PostgresPool.$waitsWithoutLimit.withValue(true) {
                    try await self.read(entry.key, watermark: watermark)
                }
                // The window first, then its mark, then back to the passes: a pass that judged
                // the entry between the two would apply the changes after the new mark to the
                // old window, and publish it at a later position than this read's, which this
                // update could no longer replace (a count off for good; CI ci23).
                entry.update(read.window, position: read.position, settled: read.settled)
                state.withLock { state in
                    state.marks[id] = read.mark
                    state.broken.remove(id)
                    state.rereading.remove(id)
                }
                return true
            } catch {
                state.withLock { state in
                    state.broken.insert(id)
                    state.rereading.remove(id)
                }
                failed([entry], error)
                return false
            }
        }
    }
#endif
