internal import Foundation

extension BrowserConfiguration {
    /// TOMLKit's word on a line it cannot read, said as the other problems are: what is wrong
    /// and what to do, its own text kept in brackets (hostile round 11: "Error while parsing
    /// value: exceeded maximum nested value depth of 256 (TOML_MAX_NESTED_VALUES)" and
    /// "expected '\n' after '\r'" for a lone CR were shown as they came).
    static func unreadable(_ description: String) -> String {
        let prefix = "Error while parsing "
        let said = description.hasPrefix(prefix) ? String(description.dropFirst(prefix.count)) : description
        if said.contains("TOML_MAX_NESTED_VALUES") {
            return
                "values nested too deep for TOML to read (\(said.replacingOccurrences(of: " (TOML_MAX_NESTED_VALUES)", with: ""))): "
                + "no setting nests lists or tables; write a flat list such as [\"j\", \"down\"]"
        }
        if said.contains("after '\\r'") {
            return "a carriage return (\\r) not followed by a line feed: TOML ends lines with LF or CRLF only; "
                + "remove it, or save the file with LF or CRLF line ends"
        }
        return "TOML cannot read this line (\(said)): correct it as `shelf config --defaults` writes each setting, "
            + "or make it a comment with #"
    }
}
