/// Calls an export's progress closure every `interval` rows and once at the end.
struct ProgressReporter {
    let total: Int?
    let report: (@Sendable (ExportProgress) -> Void)?
    private var next: Int
    static let interval = 4_096

    init(total: Int?, report: (@Sendable (ExportProgress) -> Void)?) {
        self.total = total
        self.report = report
        next = report == nil ? .max : Self.interval
    }

    @inline(__always)
    mutating func advance(to rows: Int) {
        guard rows >= next else { return }
        next = rows + Self.interval
        report?(ExportProgress(rows: rows, total: total))
    }

    func finish(at rows: Int) {
        report?(ExportProgress(rows: rows, total: total))
    }
}
