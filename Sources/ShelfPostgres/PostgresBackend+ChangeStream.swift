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
            try await pool.read { connection in
                let (watermark, head) = try await ChangeLog.start(on: connection)
                // The gaps at or below the head are the seqs not visible now that may still
                // commit: owed. Everything else up to the head was visible: not from now on.
                return ChangeLogStart(
                    position: min(watermark.position, head), head: head,
                    owed: watermark.pending.gaps.map(\.seqs).filter { $0.lowerBound <= head })
            }
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
