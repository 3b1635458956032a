/// One copy from a store's snapshot into another store's transaction: the work behind
/// `Store.copy(to:options:progress:)`. Blocks the calling thread.
package struct StoreCopier {
    let source: Store
    let target: Store
    let options: CopyOptions
    let progress: (CopyProgress) -> Void
    let isCancelled: () -> Bool

    /// Rows read and written at a time.
    static let pageSize = 1000

    /// Thrown inside the target's transaction to roll it back when the two sides differ.
    private struct Mismatch: Error {
        let report: CopyReport
    }

    func run() throws -> CopyReport {
        let from = source.backend
        let into = target.backend
        guard from.copyIdentity != into.copyIdentity else {
            throw StoreError(
                .invalidValue,
                "\(source.location) and \(target.location) are the same database; copy into another one")
        }
        if options.replace, let other = try into.otherUsers() {
            throw StoreError(
                .busy,
                "\(target.location) is open in \(other); replacing its contents under it would pull its data away, "
                    + "so stop it (or wait for it to end), then copy again")
        }
        do {
            return try from.withCopySnapshot { snapshot in
                try copy(from: snapshot, into: into)
            }
        } catch let mismatch as Mismatch {
            return mismatch.report
        }
    }

    private func copy(from snapshot: any CopySnapshot, into: any StoreBackend) throws -> CopyReport {
        let unknown = CopyTable.unknownColumns(in: try snapshot.schemaColumns(), ignoring: snapshot.derivedColumns)
        guard unknown.isEmpty else {
            throw StoreError(
                .invalidValue,
                "\(source.location) holds data that shelf copy does not know how to carry ("
                    + unknown.joined(separator: ", ")
                    + "); it was added by another program or a newer shelf, so copy it with that shelf, or remove it")
        }
        var totals: [CopyTable: Int] = [:]
        var lastIDs: [CopyTable: Int64] = [:]
        for table in CopyTable.allCases {
            totals[table] = try snapshot.rowCount(table)
            lastIDs[table] = try snapshot.lastID(table)
        }
        let totalRows = totals.values.reduce(0, +)
        return try into.withCopyTransaction { transaction in
            try prepare(transaction, lastIDs: &lastIDs)
            var fingerprint = CopyFingerprint()
            var counts: [CopyReport.TableCount] = []
            var copied = 0
            for table in CopyTable.allCases {
                fingerprint.begin(table)
                var rows = 0
                var after = Int64.min
                while true {
                    if isCancelled() { throw CancellationError() }
                    let page = try snapshot.rows(table, after: after, limit: Self.pageSize)
                    guard let last = page.last?.first?.integer else { break }
                    try transaction.insert(page, into: table)
                    for row in page { fingerprint.add(row) }
                    rows += page.count
                    copied += page.count
                    after = last
                    progress(CopyProgress(table: table.name, copiedRows: copied, totalRows: totalRows, checking: false))
                    if page.count < Self.pageSize { break }
                }
                counts.append(CopyReport.TableCount(table: table.name, rows: rows))
            }
            for table in CopyTable.allCases {
                try transaction.advanceSequence(of: table, past: lastIDs[table] ?? 0)
            }
            progress(CopyProgress(table: "", copiedRows: copied, totalRows: totalRows, checking: true))
            let report = CopyReport(
                source: CopyReport.Side(counts: counts, fingerprint: fingerprint.finalized()),
                target: try Self.side(of: transaction, isCancelled: isCancelled))
            guard report.matches else { throw Mismatch(report: report) }
            if isCancelled() { throw CancellationError() }
            return report
        }
    }

    /// Refuses a target that holds rows (unless replacing, then deletes them), and raises
    /// `lastIDs` to the IDs the target handed out before, so none is handed out again.
    private func prepare(_ transaction: any CopyTransaction, lastIDs: inout [CopyTable: Int64]) throws {
        var present: [String] = []
        for table in CopyTable.allCases {
            let count = try transaction.rowCount(table)
            if count > 0 { present.append(table.counted(count)) }
            lastIDs[table] = max(lastIDs[table] ?? 0, try transaction.lastID(table))
        }
        guard !present.isEmpty else { return }
        guard options.replace else {
            throw StoreError(
                .invalidValue,
                "\(target.location) is not empty: it holds \(Self.listed(present)); copy into an empty store "
                    + "(a new file, an empty database, or one shelf migrate just made), or replace its contents "
                    + "(shelf copy --replace)")
        }
        try transaction.deleteAll()
    }

    /// Every copied row of `snapshot` (the target's transaction, as it sees itself now): row
    /// counts and fingerprint.
    package static func side(of snapshot: any CopySnapshot, isCancelled: () -> Bool = { false }) throws
        -> CopyReport.Side
    {
        var fingerprint = CopyFingerprint()
        var counts: [CopyReport.TableCount] = []
        for table in CopyTable.allCases {
            fingerprint.begin(table)
            var rows = 0
            var after = Int64.min
            while true {
                if isCancelled() { throw CancellationError() }
                let page = try snapshot.rows(table, after: after, limit: pageSize)
                guard let last = page.last?.first?.integer else { break }
                for row in page { fingerprint.add(row) }
                rows += page.count
                after = last
                if page.count < pageSize { break }
            }
            counts.append(CopyReport.TableCount(table: table.name, rows: rows))
        }
        return CopyReport.Side(counts: counts, fingerprint: fingerprint.finalized())
    }

    /// "a", "a and b", "a, b and c".
    package static func listed(_ parts: [String]) -> String {
        guard parts.count > 1 else { return parts.first ?? "" }
        return parts.dropLast().joined(separator: ", ") + " and " + (parts.last ?? "")
    }
}
