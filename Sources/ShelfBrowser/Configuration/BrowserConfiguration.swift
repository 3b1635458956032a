internal import Foundation

/// What the browser's configuration file sets: the keys of every mode, the colours and the
/// list's columns; and what in the file was wrong.
///
/// The file is `$XDG_CONFIG_HOME/shelf/config.toml`, or `~/.config/shelf/config.toml` without
/// that variable (`location(environment:)`). A missing file is the defaults. A wrong part of a
/// file (a line TOML cannot read, an unknown action, key, colour or column) is named in
/// `problems` and left out; everything else in the file still applies.
public struct BrowserConfiguration: Sendable {
    /// The keys in force.
    public var keys: KeyMap = .defaults
    /// The styles in force (`NO_COLOR` still drops every colour).
    public var palette = Palette()
    /// The item list's columns, in order.
    public var columns: [ItemColumn] = ItemColumn.defaults
    /// What was wrong in the file, in the order of its lines.
    public var problems: [ConfigurationProblem] = []

    /// The browser's defaults.
    public init() {}

    /// Where the file is for `environment`: `$XDG_CONFIG_HOME/shelf/config.toml` when that is
    /// set to an absolute path, else `$HOME/.config/shelf/config.toml`; nil without either.
    public static func location(environment: [String: String]) -> String? {
        if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") {
            return base + "/shelf/config.toml"
        }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.config/shelf/config.toml" }
        return nil
    }

    /// The largest configuration file read: 1 MiB, far more than every key and colour needs.
    static let maximumFileSize = 1 << 20

    /// Reads the file at `path` (a symbolic link is followed): the defaults when there is no
    /// file, and a problem (with the defaults) when it exists but is not a regular file, is
    /// larger than `maximumFileSize` (a generated file such as /proc's, whose size `stat`
    /// says is 0, is read up to that size and no further) or cannot be read. Blocks while it
    /// reads: call it before the browser starts, or off the cooperative pool.
    public static func load(path: String) -> BrowserConfiguration {
        let name = (path as NSString).lastPathComponent
        func refused(_ message: String) -> BrowserConfiguration {
            var configuration = BrowserConfiguration()
            configuration.problems = [ConfigurationProblem(file: name, line: nil, message: message)]
            return configuration
        }
        switch ConfigurationFile.contents(path: path, limit: maximumFileSize) {
        case .missing:
            return BrowserConfiguration()
        case .refused(let message):
            return refused(message)
        case .read(let data):
            // Line by line: a line that is not UTF-8 is named and left out, and the rest applies.
            var problems: [ConfigurationProblem] = []
            var lines: [String] = []
            for (index, bytes) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                .enumerated()
            {
                if let line = String(validating: bytes, as: UTF8.self) {
                    lines.append(line)
                } else {
                    problems.append(
                        ConfigurationProblem(
                            file: name, line: index + 1,
                            message: "not UTF-8 text; line ignored (save the file as UTF-8)"))
                    lines.append("")
                }
            }
            return parse(lines.joined(separator: "\n"), file: name, problems: problems)
        }
    }
}

/// One thing wrong in the configuration file: where, and what.
public struct ConfigurationProblem: Hashable, Sendable, CustomStringConvertible {
    /// The file's name (`config.toml`).
    public let file: String
    /// The line, counted from 1, when known.
    public let line: Int?
    /// What is wrong and what was done instead, on one line: control characters quoted from the
    /// file are shown escaped (`\n`, `\t`, `\u{1B}`).
    public let message: String
    /// What would be right (the known names), for the full description.
    public let hint: String?

    /// A problem at `line` of `file`; `message` and `hint` are kept on one line (hostile round
    /// 11: `done = "multi\nline\tTAB"` in [colors] broke a `file:LINE:` message over two
    /// lines, and a TAB or ESC quoted from the file acted on the terminal).
    init(file: String, line: Int?, message: String, hint: String? = nil) {
        self.file = file
        self.line = line
        self.message = Self.oneLine(message)
        self.hint = hint.map(Self.oneLine)
    }

    /// `text` with each character that would break the line or act on a terminal written as
    /// an escape: `\n`, `\r`, `\t`, else `\u{1B}` (as `KeyName.shown` writes them).
    static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: Self.isHidden) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isHidden(scalar): result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// True for a scalar a one-line message must not hold as is: a control or format
    /// character, or a line or paragraph separator.
    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate: true
        default: false
        }
    }

    /// `config.toml:12: unknown action “jump” in [keys.list]; ignored`: short, for a status bar.
    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }

    /// The description with the hint: `… ; ignored (known: moveDown, …)`.
    public var fullDescription: String {
        hint.map { description + " (\($0))" } ?? description
    }
}
