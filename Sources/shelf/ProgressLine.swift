import Foundation

/// A progress bar on stderr, redrawn in place, shown only when stderr is a terminal.
final class ProgressLine {
    private let total: Int
    private let label: String
    private let isTerminal = isatty(2) == 1
    private let start = ContinuousClock.now
    private var lastDraw = ContinuousClock.now - .seconds(1)

    init(total: Int, label: String) {
        self.total = max(1, total)
        self.label = label
    }

    /// Shows `done` of the total (at most every 50 ms).
    func update(_ done: Int) {
        guard isTerminal else { return }
        let now = ContinuousClock.now
        guard now - lastDraw >= .milliseconds(50) || done >= total else { return }
        lastDraw = now
        let fraction = Double(done) / Double(total)
        let elapsed = (now - start).seconds
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = "\r\(label) \(bar) \(Int(fraction * 100))%  \(done)/\(total)  \(Int(rate)) rows/s\u{1B}[K"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// Ends the line.
    func finish() {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
