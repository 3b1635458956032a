import Foundation

/// One benchmark's result: Shelf's median against a baseline's median.
struct Comparison {
    let name: String
    let unit: String
    let shelf: Double
    let baseline: Double
    let baselineName: String
    /// Shelf over baseline (for throughputs higher is better; for times lower is), or, when
    /// `speedup`, baseline over Shelf (for times: how many times faster Shelf is).
    var ratio: Double { speedup ? baseline / shelf : shelf / baseline }
    let target: String
    var speedup = false

    var json: String {
        func number(_ value: Double) -> String { String(format: "%.6g", value) }
        return
            #"{"benchmark": "\#(name)", "unit": "\#(unit)", "shelf": \#(number(shelf)), "baseline": \#(number(baseline)), "#
            + #""baseline_name": "\#(baselineName)", "ratio": \#(number(ratio))"#
            + (speedup ? #", "ratio_kind": "speedup"}"# : "}")
    }
}

/// A figure with no baseline (reported on its own).
struct Figure {
    let name: String
    let unit: String
    let value: Double
    let target: String

    var json: String {
        #"{"benchmark": "\#(name)", "unit": "\#(unit)", "shelf": \#(String(format: "%.6g", value))}"#
    }
}

struct Report {
    let json: Bool

    func print(_ comparison: Comparison) {
        if json {
            Swift.print(comparison.json)
        } else {
            Swift.print(
                pad(comparison.name, 28) + pad(format(comparison.shelf) + " " + comparison.unit, 20)
                    + pad(format(comparison.baseline) + " (" + comparison.baselineName + ")", 30)
                    + pad(String(format: "%.4g", comparison.ratio), 10) + comparison.target)
        }
        fflush(nil)
    }

    /// One line per baseline: the medians of `shelf` and of each baseline's samples.
    /// `speedup` reports the ratio as baseline over Shelf (for times).
    func compare(
        _ name: String, unit: String, shelf: [Double],
        against baselines: [(name: String, samples: [Double], target: String)], speedup: Bool = false
    ) {
        for baseline in baselines {
            print(
                Comparison(
                    name: name, unit: unit, shelf: median(shelf), baseline: median(baseline.samples),
                    baselineName: baseline.name, target: baseline.target, speedup: speedup))
        }
    }

    func print(_ figure: Figure) {
        if json {
            Swift.print(figure.json)
        } else {
            Swift.print(pad(figure.name, 28) + pad(format(figure.value) + " " + figure.unit, 58) + figure.target)
        }
        fflush(nil)
    }

    func header() {
        guard !json else { return }
        Swift.print(
            pad("benchmark", 28) + pad("shelf (median)", 20) + pad("baseline (median)", 30) + pad("ratio", 10)
                + "target"
        )
    }

    func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private func format(_ value: Double) -> String {
        value >= 1000 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)
    return sorted[max(0, index)]
}

extension Duration {
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// Times `body` once.
func time(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return (ContinuousClock.now - start).seconds
}

func time(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return (ContinuousClock.now - start).seconds
}

/// A fresh folder for one benchmark's database files.
func scratchFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
