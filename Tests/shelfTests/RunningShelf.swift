import Foundation
import Synchronization

/// A `shelf` process left running (like `shelf watch`), whose output lines are collected.
final class RunningShelf {
    /// Output received so far: complete lines, and the start of the next one.
    private final class LineBuffer: Sendable {
        let lines = Mutex<[String]>([])
        let partial = Mutex(Data())
    }

    private let process: Process
    private let buffer = LineBuffer()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = ShelfProcess.executable
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let lineBuffer = buffer
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            let complete = lineBuffer.partial.withLock { buffer -> [String] in
                buffer.append(data)
                var found: [String] = []
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    found.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
                return found
            }
            lineBuffer.lines.withLock { $0.append(contentsOf: complete) }
        }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Waits until at least `count` lines have arrived, or `timeout` passes; returns them all.
    func waitForLines(_ count: Int, timeout: Duration = .seconds(10)) async -> [String] {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let current = buffer.lines.withLock { $0 }
            if current.count >= count { return current }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return buffer.lines.withLock { $0 }
    }

    var isRunning: Bool { process.isRunning }

    /// Sends SIGINT (Ctrl-C) and waits for the process to end; returns its exit status.
    func interrupt() -> Int32 {
        process.interrupt()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// One line of `shelf watch items`.
struct WatchLine: Decodable {
    struct Item: Decodable {
        let id: Int64
        let title: String
        let status: String
        let priority: Int
        let userId: Int64
    }
    let count: Int
    let items: [Item]

    init(_ line: String) throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        self = try decoder.decode(WatchLine.self, from: Data(line.utf8))
    }
}
