import Foundation

/// Runs the real `shelf` binary built next to the test bundle.
struct ShelfProcess {
    struct Result {
        let status: Int32
        let output: String
        let error: String
    }

    /// The built `shelf` executable: beside the test bundle in the products folder.
    static let executable: URL = {
        var folder = Bundle.main.bundleURL
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("shelf")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return Bundle.main.bundleURL.appendingPathComponent("shelf")
    }()

    /// A fresh folder per test, removed by `cleanUp()`.
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: folder)
    }

    var databasePath: String { folder.appendingPathComponent("shelf.sqlite").path }

    /// Runs `shelf arguments` with a minimal environment plus `environment`, and waits.
    /// `input` is given as stdin (through a file), else stdin is empty.
    func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        var base = ["PATH": "/usr/bin:/bin", "HOME": folder.appendingPathComponent("home").path]
        base.merge(environment) { $1 }
        process.environment = base
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        if let input {
            let path = folder.appendingPathComponent("stdin-\(UUID().uuidString)").path
            try Data(input.utf8).write(to: URL(fileURLWithPath: path))
            process.standardInput = FileHandle(forReadingAtPath: path)
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData, as: UTF8.self))
    }
}
