import Foundation
import ShelfStore
import Synchronization

/// A progress bar on stderr, redrawn in place, shown only when stderr is a terminal.
final class ProgressLine: Sendable {
    private let total: Int
    private let label: String
    private let isTerminal: Bool
    private let start = ContinuousClock.now
    private let lastDraw = Mutex(ContinuousClock.now - .seconds(1))

    init(total: Int, label: String, enabled: Bool = true) {
        self.total = max(1, total)
        self.label = label
        isTerminal = enabled && isatty(2) == 1
    }

    /// Shows `done` of the total (at most every 50 ms).
    func update(_ done: Int) {
        let elapsed = (ContinuousClock.now - start).seconds
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        draw(
            fraction: Double(done) / Double(total), detail: "\(done)/\(total)  \(Int(rate)) rows/s",
            force: done >= total)
    }

    /// Shows `done` rows of `total` and the rate, as a bar when the total is known (`done` past
    /// it shows a full bar; reaching it is always drawn); without one, rows and rate only.
    func update(_ done: Int, of total: Int?) {
        let elapsed = (ContinuousClock.now - start).seconds
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        guard let total else {
            draw(fraction: nil, detail: "\(counted(done, "row"))  \(Int(rate)) rows/s", force: false)
            return
        }
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        draw(fraction: fraction, detail: "\(done)/\(total)  \(Int(rate)) rows/s", force: done >= total)
    }

    /// Says the rows are being written now (all read and checked), with how many.
    func writing(rows: Int) {
        draw(fraction: nil, detail: "writing \(counted(rows, "row")) in one transaction…", force: true)
    }

    /// Says the rows are written and being read back to check them, with how many.
    func checking(rows: Int) {
        draw(fraction: nil, detail: "checking \(counted(rows, "row")) (reading them back)…", force: true)
    }

    /// Shows how far a copy (or a restore, which is one) has come.
    func show(_ step: CopyProgress) {
        if step.checking {
            checking(rows: step.totalRows)
        } else {
            update(step.copiedRows, of: step.totalRows)
        }
    }

    /// Shows `rows` read, the rate, and the share of `bytes` of `totalBytes` with the time
    /// left; without a size (a pipe), rows and rate only.
    func update(rows: Int, bytes: Int, totalBytes: Int?) {
        let elapsed = (ContinuousClock.now - start).seconds
        let rate = elapsed > 0 ? Double(rows) / elapsed : 0
        var detail = "\(counted(rows, "row"))  \(Int(rate)) rows/s"
        guard let totalBytes, totalBytes > 0 else {
            draw(fraction: nil, detail: detail, force: false)
            return
        }
        let fraction = min(1, Double(bytes) / Double(totalBytes))
        if fraction > 0.01, fraction < 1 {
            let left = Int(elapsed / fraction * (1 - fraction))
            detail += String(format: "  ETA %d:%02d", left / 60, left % 60)
        }
        draw(fraction: fraction, detail: detail, force: false)
    }

    private func draw(fraction: Double?, detail: String, force: Bool) {
        guard isTerminal else { return }
        let now = ContinuousClock.now
        let due = lastDraw.withLock { last in
            guard now - last >= .milliseconds(50) || force else { return false }
            last = now
            return true
        }
        guard due else { return }
        writeStandardError(
            "\r" + Self.fitted(label: label, fraction: fraction, detail: detail, columns: Self.columns()) + "\u{1B}[K")
    }

    /// The line as it fits in `columns` (one fewer, so it never wraps, which would leave a copy
    /// behind at every redraw): the bar narrows, then goes, then the text is cut.
    static func fitted(label: String, fraction: Double?, detail: String, columns: Int) -> String {
        let room = max(1, columns - 1)
        var line = label + " "
        if let fraction {
            let percent = " \(Int(fraction * 100))%  "
            let width = min(30, room - line.count - percent.count - detail.count)
            if width >= 10 {
                let filled = Int(fraction * Double(width))
                line += String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            }
            line += percent
        }
        line += detail
        // Labels and details are ASCII and the bar's blocks one column each: characters are columns.
        return line.count > room ? String(line.prefix(room)) : line
    }

    /// The width of the terminal on stderr, else 80.
    private static func columns() -> Int {
        var size = winsize()
        guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Ends the line.
    func finish() {
        guard isTerminal else { return }
        writeStandardError("\r\u{1B}[K")
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
