#if PostgreSQL
    internal import ShelfStore

    /// A position in `shelf_change_log` below which nothing can still commit: what a reader
    /// that must pass changes on in seq order (a change stream, a live window's position) keeps.
    ///
    /// `ChangeLogCursor` passes every change on as soon as it is visible, in any order; this one
    /// moves only over seqs that are *settled*: visible, or known never to commit. A seq `k`
    /// missing below a visible seq `j` in a snapshot `S` was handed out before `S`, so the
    /// transaction holding it had ended before `S` (rolled back: `k` never commits) or was in
    /// progress at `S` (see `ChangeLogCursor` for the argument). The first snapshot that shows
    /// `k` missing records the transactions that may be this database's and running then
    /// (`ChangeLog.candidates`: `xip`, and this database's sessions' transactions, which `xip`
    /// omits at or above `xmax`) as `k`'s *holders*; in a later snapshot in which every holder
    /// has ended (below `xmax` and not in progress), `k` is visible or never will be. A gap is
    /// never settled by the snapshot that first shows it.
    /// Holders are fixed at that first sight, so writers that keep starting do not hold `k`
    /// open, only those already running then.
    ///
    /// `position` never decreases; every seq up to it was visible in the last snapshot read, or
    /// never commits. Visible seqs above the first unsettled gap wait (`pending`).
    struct ChangeLogWatermark: Sendable, Equatable {
        /// Every seq up to this one is visible in the last snapshot read, or never commits.
        private(set) var position: Int64
        /// Unsettled gaps above `position`, in seq order, with their holders.
        private(set) var pending: ChangeLogPending

        /// A watermark at `position` with `pending` gaps above it (from a reader's last read).
        init(position: Int64, pending: ChangeLogPending = ChangeLogPending()) {
            self.position = position
            self.pending = pending
        }

        /// What one snapshot shows of the log after `position`.
        struct Snapshot: Sendable {
            /// The visible seqs after the position read from, ascending (possibly only the
            /// first of them, up to a read's limit).
            var seqs: [Int64]
            /// The snapshot's xmin: every transaction below it had ended.
            var xmin: Int64
            /// The snapshot's xmax: the latest transaction that had completed, plus one. A
            /// transaction at or above it may still run although `inProgress` omits it.
            var xmax: Int64
            /// The snapshot's transactions in progress (all databases).
            var inProgress: Set<Int64>
            /// Those of them that may be this database's (`ChangeLog.candidates`).
            var candidates: Set<Int64>
            /// The seq pruning has deleted through.
            var prunedThrough: Int64
        }

        /// Moves over what `snapshot` shows settled. Returns true when the log was pruned past
        /// the position (changes after it may be gone: the position then stands at the horizon).
        @discardableResult
        mutating func advance(_ snapshot: Snapshot) -> Bool {
            func ended(_ xid: Int64) -> Bool {
                ChangeLog.hasEnded(xid, xmax: snapshot.xmax, inProgress: snapshot.inProgress)
            }
            var pruned = false
            if snapshot.prunedThrough > position {
                pruned = true
                position = snapshot.prunedThrough
            }
            let seqs = snapshot.seqs.filter { $0 > position }
            // The seqs missing between the position and the last visible one read.
            var missing: [ClosedRange<Int64>] = []
            var previous = position  // below every seq: `previous + 1` cannot overflow
            for seq in seqs {
                if seq - previous > 1 { missing.append((previous + 1)...(seq - 1)) }
                previous = seq
            }
            // Each keeps the holders of the first snapshot that showed it missing.
            let known = pending.gaps.sorted { $0.seqs.lowerBound < $1.seqs.lowerBound }
            var gaps: [ChangeLogPending.Gap] = []
            // The indices in `gaps` of those first seen in this snapshot.
            var fresh = Set<Int>()
            for range in missing {
                var next = range.lowerBound
                for gap in known where gap.seqs.overlaps(range) {
                    let low = max(gap.seqs.lowerBound, range.lowerBound)
                    let high = min(gap.seqs.upperBound, range.upperBound)
                    if next < low {
                        gaps.append(ChangeLogPending.Gap(seqs: next...(low - 1), holders: snapshot.candidates))
                        fresh.insert(gaps.count - 1)
                    }
                    gaps.append(ChangeLogPending.Gap(seqs: low...high, holders: gap.holders))
                    next = high + 1
                }
                if next <= range.upperBound {
                    gaps.append(ChangeLogPending.Gap(seqs: next...range.upperBound, holders: snapshot.candidates))
                    fresh.insert(gaps.count - 1)
                }
            }
            // A gap whose holders have all ended, and which this snapshot does not show, never
            // commits. Not one first seen now: its holder may have committed between this
            // snapshot and the read of the sessions' transactions (`candidates`), and be missing
            // from the holders; the next snapshot shows its seq, or that it never commits.
            gaps = gaps.enumerated().filter { fresh.contains($0.offset) || !$0.element.holders.allSatisfy(ended) }
                .map(\.element)
            position = gaps.first.map { $0.seqs.lowerBound - 1 } ?? seqs.last ?? position
            pending = ChangeLogPending(gaps: gaps)
            return pruned
        }
    }
#endif
