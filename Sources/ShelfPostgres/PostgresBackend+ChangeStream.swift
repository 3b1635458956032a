#if PostgreSQL
    internal import PostgresNIO
    package import ShelfStore

    /// The change stream of a PostgreSQL store: `shelf_change_log` read in seq order, each read
    /// moving only over seqs that are settled (`ChangeLogWatermark`), so a change committed late
    /// with a lower seq than one already visible is never skipped; the feed's wake-ups.
    extension PostgresBackend {
        package var streamsChangeLog: Bool { true }

        package func changeLog(after position: Int64, limit: Int, pending: ChangeLogPending) async throws
            -> ChangeLogExcerpt
        {
            if limit < 1 {
                throw StoreError(.invalidValue, "a change-log read needs a limit of 1 or more, not \(limit)")
            }
            let read = try await pool.read { connection in
                try await ChangeLog.ordered(after: position, limit: limit, on: connection)
            }
            var watermark = ChangeLogWatermark(position: position, pending: pending)
            if watermark.advance(read.snapshot) {
                return ChangeLogExcerpt(changes: [], head: read.head, interrupted: true, after: position, limit: limit)
            }
            var changes: [RowChange] = []
            var next = position
            var interrupted = false
            for row in read.rows where row.seq <= watermark.position {
                guard row.table == "items" || row.table == "users" else {
                    next = row.seq  // saved views: not in the stream
                    continue
                }
                guard let rowID = row.rowID, let operation = Self.streamOperation(row.operation) else {
                    interrupted = true  // a TRUNCATE: no rows to follow one by one
                    break
                }
                changes.append(RowChange(sequence: row.seq, table: row.table, rowID: rowID, operation: operation))
                next = row.seq
            }
            return ChangeLogExcerpt(
                changes: changes, head: read.head, interrupted: interrupted, after: position, limit: limit, next: next,
                hasMore: !interrupted && read.isFull && watermark.pending.isEmpty, pending: watermark.pending)
        }

        package func changeLogStart() async throws -> ChangeLogStart {
            let (watermark, head) = try await pool.read { try await ChangeLog.start(on: $0) }
            // The gaps at or below the head are the seqs not visible then that may still commit:
            // owed. Everything else up to the head was visible: not from now on.
            var owed = watermark.pending.gaps.map(\.seqs).filter { $0.lowerBound <= head }
            // A gap is never settled by the snapshot that first shows it (`ChangeLogWatermark`),
            // so a rolled-back transaction's gap, however old, kept every new stream's position
            // below it, and a client resuming from that position got changes made before it
            // first connected (hostile round 14). A second snapshot drops from what is owed the
            // seqs it settles as never committing; those it shows committed since stay owed.
            if !owed.isEmpty {
                let (snapshot, later) = try await pool.read { try await ChangeLog.startSnapshot(on: $0) }
                owed = Self.stillOwed(owed, after: watermark, head: head, snapshot: snapshot, later: later)
            }
            return ChangeLogStart(position: owed.first.map { $0.lowerBound - 1 } ?? head, head: head, owed: owed)
        }

        /// Of the `owed` seqs (the gaps of `watermark`, read with `head`), those a later
        /// `snapshot` (with its head `later`) does not settle as never committing: visible in it
        /// (committed since), or in a gap it leaves open. All of them when its window of seqs
        /// does not reach down to the first.
        static func stillOwed(
            _ owed: [ClosedRange<Int64>], after watermark: ChangeLogWatermark, head: Int64,
            snapshot: ChangeLogWatermark.Snapshot, later: Int64
        ) -> [ClosedRange<Int64>] {
            guard let lowest = owed.first?.lowerBound, later - ChangeLog.startWindow < lowest else { return owed }
            var settled = watermark
            settled.advance(snapshot)
            let visible = Set(snapshot.seqs)
            let open = settled.pending.gaps.map(\.seqs)
            var kept: [ClosedRange<Int64>] = []
            for range in owed {
                for seq in range.lowerBound...min(range.upperBound, head)
                where visible.contains(seq) || open.contains(where: { $0.contains(seq) }) {
                    if let last = kept.last, last.upperBound == seq - 1 {
                        kept[kept.count - 1] = last.lowerBound...seq
                    } else {
                        kept.append(seq...seq)
                    }
                }
            }
            return kept
        }

        package var changeFeedSilentSince: ContinuousClock.Instant? { feed.silentSince }

        package func watchChangeLog(_ onChange: @escaping @Sendable () -> Void) async throws -> ChangeLogWatch {
            try pool.checkOpen()
            do {
                return ChangeLogWatch(holding: try await feed.watch(tables: ["items", "users"], onChange))
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError(postgres: error, at: place)
            }
        }

        private static func streamOperation(_ logged: String) -> RowChange.Operation? {
            switch logged {
            case "I": .insert
            case "U": .update
            case "D": .delete
            default: nil
            }
        }
    }
#endif
