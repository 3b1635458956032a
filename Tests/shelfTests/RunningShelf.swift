import Foundation
import ShelfTestSupport

/// A `shelf` process left running (like `shelf watch`), whose output lines are collected.
///
/// Its stdout goes to a file, read as it grows: no pipe and no dispatch source to tear down.
final class RunningShelf {
    private let child: ChildProcess
    private let outputPath: String
    private var lines: [String] = []
    private var readOffset = 0
    private var partial = Data()

    /// `stderr`: a file for the process's stderr (discarded when nil).
    init(_ arguments: [String], environment: [String: String] = [:], stderr: String? = nil) throws {
        outputPath = NSTemporaryDirectory() + "shelf-running-\(UUID().uuidString).out"
        child = try ChildProcess(
            ShelfProcess.executable.path, arguments,
            environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }, stdout: outputPath,
            stderr: stderr ?? "/dev/null")
    }

    /// Waits until the process ends on its own, or `timeout` passes; its exit status, or nil.
    func waitForExit(timeout: Duration = .seconds(120)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while child.isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return child.isRunning ? nil : child.wait()
    }

    deinit {
        if child.isRunning { child.signal(SIGTERM) }
        child.wait()
        unlink(outputPath)
    }

    /// Waits until at least `count` lines have arrived, or `timeout` passes; returns them all.
    func waitForLines(_ count: Int, timeout: Duration = .seconds(60)) async -> [String] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            readNewLines()
            if lines.count >= count { return lines }
            try? await Task.sleep(for: .milliseconds(5))
        }
        readNewLines()
        return lines
    }

    var isRunning: Bool { child.isRunning }

    /// The process's ID, for signals sent from another thread.
    var pid: pid_t { child.pid }

    /// Sends `signal` and waits for the process to end; returns its exit status.
    func stop(_ signal: Int32) -> Int32 {
        child.signal(signal)
        return child.wait()
    }

    /// Sends SIGINT (Ctrl-C) and waits for the process to end; returns its exit status.
    func interrupt() -> Int32 {
        child.signal(SIGINT)
        return child.wait()
    }

    private func readNewLines() {
        guard let handle = FileHandle(forReadingAtPath: outputPath) else { return }
        defer { try? handle.close() }
        try? handle.seek(toOffset: UInt64(readOffset))
        let data = handle.readDataToEndOfFile()
        readOffset += data.count
        partial.append(data)
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
            partial.removeSubrange(partial.startIndex...newline)
        }
    }
}

/// One line of `shelf watch items`.
struct WatchLine: Decodable {
    struct Item: Decodable {
        let id: Int64
        let title: String
        let status: String
        let priority: Int
        let user: String
    }
    let count: Int
    let items: [Item]

    init(_ line: String) throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        self = try decoder.decode(WatchLine.self, from: Data(line.utf8))
    }
}
