#if PostgreSQL
    /// Where a reader of `shelf_change_log` stands, safe against commits out of seq order.
    ///
    /// A seq is handed out (CACHE 1, so in time order) when a change is logged, but becomes
    /// visible only when its transaction commits, and never when it rolls back: a reader that
    /// kept only "the highest seq seen" would skip a seq committed after a higher one. The
    /// cursor keeps `highest` (the highest seq read), and the *gaps*: ranges of seqs below it
    /// not visible yet. Every seq up to `highest` outside the gaps has been read; the next read
    /// asks for the rows after `highest` and the rows in the gaps (`ChangeLog.page`), so a row
    /// is read once. `through` is the seq up to which nothing is pending.
    ///
    /// **Why a gap closes.** A gap `k` is first seen in a snapshot `S` that shows a higher seq
    /// `j`. Seqs come in time order, so `k` was handed out before `j`, which committed before
    /// `S` was taken: `k` was handed out before `S`. The transaction `T` holding `k` had its
    /// (top-level) ID by then (the log row is written by an AFTER trigger, after `T`'s own
    /// change assigned it), so `T` had ended before `S` (committed: `k` would be visible in
    /// `S`, so `T` rolled back, and `k` never commits) or was running at `S`. The gap keeps
    /// as its *candidates* `S`'s transactions in progress, less those that sessions of other
    /// databases hold, and the transactions this database's sessions hold (`pg_stat_activity`;
    /// a transaction that ended meanwhile may drop out of it, which is right: it ended). The
    /// latter matter: `xip` lists only transactions below `xmax(S)`, the latest completed one
    /// plus one, so a `T` that got its ID after that one and still runs is in no `xip`
    /// (`ChangeLog.candidates`). In a later snapshot `S'` in which every candidate has ended
    /// (below `xmax(S')` and not in progress), `T` has ended: committed before `S'` (so
    /// `k` is visible in `S'`, and read), or rolled back. So a gap not read by then never will
    /// be. A transaction open for long in another database does not hold gaps open; one of
    /// this database (or a prepared transaction) may. Gaps hold nothing back: every change is
    /// passed on as soon as it is visible; an open gap costs one index range in each read.
    ///
    /// **Starting.** The first position is the log's highest visible seq `M` in a snapshot
    /// `S0`. A transaction in progress in `S0` may hold a seq below `M` and commit later: the
    /// cursor keeps `S0`'s candidates, and each read whose snapshot shows some of them ended
    /// asks for their rows up to `M` (`ChangeLog.lateRows`), passed on as changes.
    ///
    /// **Pruning.** A read whose horizon lies past `through` (and past the last horizon
    /// reported) reports `missed`: changes may have been deleted before they were read.
    struct ChangeLogCursor: Sendable, Equatable {
        /// Every seq up to this one has been read, or will never commit.
        private(set) var through: Int64
        /// The highest seq read (or where the cursor started).
        private(set) var highest: Int64
        /// Seqs not visible yet below `highest`, with the xmax of the snapshot that first
        /// showed them missing.
        private var gaps: [Gap] = []
        /// The pruning horizon last reported as `missed` (or known at the start).
        private var coveredHorizon: Int64
        /// The candidates in progress at the start that have not been seen to end.
        private var startCandidates: Set<Int64>
        /// The log's head at the start.
        private let startHead: Int64

        /// The rows up to `head` of the transactions `xids`, which were in progress at the
        /// start and have ended since.
        struct StartCheck: Sendable, Equatable {
            let head: Int64
            let xids: [Int64]
        }

        struct Gap: Sendable, Equatable {
            var seqs: ClosedRange<Int64>
            /// The transactions one of which may hold the gap's seqs.
            var candidates: Set<Int64>
        }

        /// What one read brought.
        struct Outcome: Sendable, Equatable {
            /// The changes not seen before, in seq order.
            var changes: [LoggedChange] = []
            /// True when changes may have been missed (pruned, or from a transaction in
            /// progress at the start): read every live value again.
            var missed = false
            /// True when the log was pruned past the cursor (`missed` says to re-read).
            var pruned = false
            /// Read the late rows this names (`ChangeLog.lateRows`) and pass them on too.
            var startCheck: StartCheck?
        }

        /// A cursor at the log's head, as `ChangeLog.head` returns it.
        init(head: ChangeLogHead) {
            through = max(head.seq, head.prunedThrough)
            highest = through
            coveredHorizon = head.prunedThrough
            startHead = head.seq
            startCandidates = head.candidates
        }

        /// True while no gap is open: every seq handed out up to `through`'s highest read is
        /// accounted for.
        var isSettled: Bool { gaps.isEmpty && startCandidates.isEmpty }

        /// The gaps still open, in seq order: the next read asks for their rows too.
        var openGaps: [ClosedRange<Int64>] { gaps.map(\.seqs).sorted { $0.lowerBound < $1.lowerBound } }

        /// Takes in a page read after `highest` and in `openGaps`; returns what it brought.
        mutating func absorb(_ page: ChangeLogPage) -> Outcome {
            var outcome = Outcome()
            if page.prunedThrough > max(through, coveredHorizon) {
                outcome.missed = true
                outcome.pruned = true
                coveredHorizon = page.prunedThrough
            }
            func ended(_ xid: Int64) -> Bool { ChangeLog.hasEnded(xid, xmax: page.xmax, inProgress: page.inProgress) }
            if !startCandidates.isEmpty {
                let done = startCandidates.filter(ended)
                if !done.isEmpty {
                    startCandidates.subtract(done)
                    outcome.startCheck = StartCheck(head: startHead, xids: done.sorted())
                }
            }
            for row in page.rows {
                if row.seq > highest {
                    if row.seq > highest + 1 {
                        gaps.append(Gap(seqs: (highest + 1)...(row.seq - 1), candidates: page.candidates))
                    }
                    highest = row.seq
                } else if !fill(row.seq) {
                    continue  // read before (not asked for; never happens)
                }
                outcome.changes.append(row)
            }
            // Every gap, old or found now, was asked for in this snapshot (the old ones by range,
            // the new ones lie below a row read after `highest`): a gap whose candidates have all
            // ended and that this snapshot does not show never will be.
            gaps.removeAll { $0.candidates.allSatisfy(ended) }
            through = max(through, gaps.map(\.seqs.lowerBound).min().map { $0 - 1 } ?? highest)
            return outcome
        }

        /// `seq`, in a gap, was read: the gap loses it. False when no gap holds it.
        private mutating func fill(_ seq: Int64) -> Bool {
            guard let index = gaps.firstIndex(where: { $0.seqs.contains(seq) }) else { return false }
            let gap = gaps.remove(at: index)
            if gap.seqs.lowerBound < seq {
                gaps.append(Gap(seqs: gap.seqs.lowerBound...(seq - 1), candidates: gap.candidates))
            }
            if seq < gap.seqs.upperBound {
                gaps.append(Gap(seqs: (seq + 1)...gap.seqs.upperBound, candidates: gap.candidates))
            }
            return true
        }
    }
#endif
