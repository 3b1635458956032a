internal import ShelfStore

/// Turns records into checked user and item rows, naming the file, line, column, field and
/// value of anything wrong.
struct RowDecoder {
    let fileName: String
    let plan: ColumnPlan
    let columns: Columns
    let defaultOwner: Int64?

    /// A problem with the value of `field` in `record`.
    func problem(_ reason: String, field: Field, in record: SourceRecord) -> TransferError {
        guard let column = plan[field], let value = record.value(at: column) else {
            return TransferError(file: fileName, position: record.position, field: field.name, reason: reason)
        }
        return TransferError(
            file: fileName, position: value.position, field: TransferError.escaped(columns.names[column], limit: 60),
            value: value.kind == .null ? nil : record.display(value), reason: reason)
    }

    /// The value of `field`, or nil when the record has no value for it.
    private func value(_ field: Field, _ record: SourceRecord) -> SourceValue? {
        guard let column = plan[field], let value = record.value(at: column), value.kind != .null else { return nil }
        return value
    }

    func text(_ field: Field, _ record: SourceRecord) throws(TransferError) -> String? {
        guard let value = value(field, record) else { return nil }
        switch value.kind {
        case .text: break
        case .nested: throw problem("a nested object or array; this column takes one string", field: field, in: record)
        default: throw problem("a string in double quotes is needed here", field: field, in: record)
        }
        do {
            return try record.string(value)
        } catch {
            throw problem(error.reason, field: field, in: record)
        }
    }

    func integer(_ field: Field, _ record: SourceRecord, in range: ClosedRange<Int64>, rule: String)
        throws(TransferError) -> Int64?
    {
        guard let value = value(field, record) else { return nil }
        guard value.kind == .text || value.kind == .number else {
            throw problem("\(rule) is needed here", field: field, in: record)
        }
        var number: Int64 = 0
        var digits = 0
        for byte in record.storage[value.start..<value.end] {
            guard (0x30...0x39).contains(byte), digits < 18 else {
                throw problem("it is not \(rule)", field: field, in: record)
            }
            number = number * 10 + Int64(byte - 0x30)
            digits += 1
        }
        guard digits > 0, range.contains(number) else { throw problem("it is not \(rule)", field: field, in: record) }
        return number
    }

    func time(_ field: Field, _ record: SourceRecord) throws(TransferError) -> Int64? {
        guard let text = try text(field, record) else { return nil }
        do {
            return try Timestamp.parse(text)
        } catch {
            throw problem(error.reason, field: field, in: record)
        }
    }

    func required(_ field: Field, _ record: SourceRecord, what: String) throws(TransferError) -> String {
        guard let text = try text(field, record) else {
            throw problem(
                plan[field] == nil
                    ? "the row has no '\(field.name)'; \(what)"
                    : "it is empty; \(what)", field: field, in: record)
        }
        guard text.contains(where: { !$0.isWhitespace }) else {
            throw problem("it is blank; \(what)", field: field, in: record)
        }
        return text
    }

    // MARK: Keys

    /// What a row that is skipped names, for `replace` to keep (see `ImportRowKey`): its ID
    /// when it reads as one, and for users the email as written. A row whose fields cannot
    /// be trusted (`fieldsMissing`: a CSV row with the wrong number of fields), an item whose
    /// or user ID is there but not a number, or a user with neither a readable ID nor an email
    /// that has the shape name@host, is unreadable: it might mean any row.
    func key(_ record: SourceRecord, table: ImportTable, fieldsMissing: Bool) -> ImportRowKey {
        if fieldsMissing { return ImportRowKey(isUnreadable: true) }
        let hasID = value(.id, record) != nil
        let id = try? integer(.id, record, in: 1...Int64.max, rule: "an ID")
        switch table {
        case .items:
            return ImportRowKey(id: id, isUnreadable: (hasID && id == nil) || (!hasID && idLikeColumn(record) != nil))
        case .users:
            // Characters an email may not hold (invisible, control) are left out, so a row
            // refused for one still keeps the user it names.
            let written = (try? text(.email, record)).flatMap { $0 }.map { text in
                Email.lookupKey(String(String.UnicodeScalarView(text.unicodeScalars.filter { !Email.isRefused($0) })))
            }
            let email = written?.isEmpty == false ? written : nil
            let shaped = email.map { email in
                guard let at = email.firstIndex(of: "@") else { return false }
                return at != email.startIndex && email.index(after: at) != email.endIndex
            }
            // An ID that is there but not a number might be any user's, whatever the email.
            return ImportRowKey(
                id: id, email: email, isUnreadable: (hasID && id == nil) || (id == nil && shaped != true))
        }
    }

    /// For an item row without an ID: the first column no field reads whose name holds "id"
    /// (any letter case: `idd`, `ID_`, `item_id`) and that has a value in `record`, or nil.
    /// Such a row might mean an existing item by a misspelled key: a `replace` must not take
    /// it for a new item and delete the one it meant.
    func idLikeColumn(_ record: SourceRecord) -> Int? {
        guard value(.id, record) == nil else { return nil }
        return plan.unknownColumns.first { column in
            guard let value = record.value(at: column), value.kind != .null else { return false }
            return columns.names[column].lowercased().contains("id")
        }
    }

    // MARK: Rows

    func user(_ record: SourceRecord) throws(TransferError) -> ImportedUser {
        let id = try integer(.id, record, in: 1...Int64.max, rule: "a whole number of 1 or more")
        let name = try required(.name, record, what: "every user needs a name")
        if let tooLong = TextLimits.nameProblem(name) { throw problem(tooLong, field: .name, in: record) }
        let given = try required(.email, record, what: "every user needs an email")
        // The store's rule: trimmed, NFC, no control or bidi characters (so an import cannot
        // add a second "Äda" that differs only in its bytes).
        let email: String
        do {
            email = try Email.normalized(given)
        } catch {
            throw problem(error.message, field: .email, in: record)
        }
        let at = email.firstIndex(of: "@")
        guard let at, at != email.startIndex, email.index(after: at) != email.endIndex, email.utf8.count <= 320 else {
            throw problem("it is not an email (name@host, at most 320 bytes)", field: .email, in: record)
        }
        return ImportedUser(id: id, name: name, email: email, createdAt: try time(.createdAt, record))
    }

    /// An item; an owner given by email is looked up by the store when the import is applied.
    func item(_ record: SourceRecord) throws(TransferError) -> ImportedItem {
        let id = try integer(.id, record, in: 1...Int64.max, rule: "a whole number of 1 or more")
        let owner: ImportedOwner
        if let ownerID = try integer(.userID, record, in: 1...Int64.max, rule: "a user ID (a whole number)") {
            // Both could disagree, and one would be dropped without a word: refuse the row.
            if try text(.user, record) != nil {
                throw problem(
                    "the row names its owner twice, by 'user' (email) and by 'user_id'; keep one of the two "
                        + "columns, or leave one of them empty",
                    field: .userID, in: record)
            }
            owner = .id(ownerID)
        } else if let email = try text(.user, record) {
            owner = .email(Email.lookupKey(email))
        } else if let defaultOwner {
            owner = .id(defaultOwner)
        } else {
            throw problem(
                "the row has no owner; fill its 'user' column, or pass --user EMAIL", field: .user, in: record)
        }
        let title = try required(.title, record, what: "every item needs a title")
        if let tooLong = TextLimits.titleProblem(title) { throw problem(tooLong, field: .title, in: record) }
        let notes = try text(.notes, record)
        let status: Item.Status
        switch try text(.status, record) {
        case nil: status = .open
        case let text?:
            guard let parsed = Item.Status(rawValue: text.lowercased()) else {
                throw problem("it is not a status; write open or done", field: .status, in: record)
            }
            status = parsed
        }
        let priority =
            try integer(.priority, record, in: 0...3, rule: "a priority, a whole number from 0 (lowest) to 3 (highest)")
            ?? 0
        return ImportedItem(
            id: id, owner: owner, title: title, notes: notes, status: status, priority: Int(priority),
            createdAt: try time(.createdAt, record), updatedAt: try time(.updatedAt, record))
    }
}
