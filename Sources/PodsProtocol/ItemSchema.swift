import PodsDBus

/// The keys of one kind of `a{sv}` item the library interface sends, in the
/// order `--json` prints them.
///
/// podsd builds its items from these, `pods` renders them as JSON from the
/// same list (every key present, `null` for one left out), and
/// introspection names them in an `org.pods.ItemKeys` annotation, so the
/// service, the client and a third-party script read one description.
public struct ItemSchema: Sendable {
    public let name: String
    public let fields: [ItemField]

    public init(_ name: String, _ fields: [ItemField]) {
        self.name = name
        self.fields = fields
    }

    /// `id:x title:s published:x? …`: each key, its variant's type, and `?`
    /// when the key may be left out.
    public var keySummary: String {
        fields.map { field in
            let nested = field.form.nestedSchema.map { "<\($0.name)>" } ?? ""
            return "\(field.name):\(field.type.signature)\(nested)\(field.optional ? "?" : "")"
        }.joined(separator: " ")
    }
}

/// One key of an item.
public struct ItemField: Sendable {
    public let name: String
    /// `name` in UTF-8, for matching keys read from the wire.
    public let nameUTF8: [UInt8]
    /// The type inside the variant.
    public let type: DBusType
    /// How `--json` writes the value.
    public let form: JSONForm
    /// Left out of the item when unknown (`null` in JSON).
    public let optional: Bool

    public init(_ name: String, _ type: DBusType, _ form: JSONForm = .plain, optional: Bool = false) {
        self.name = name
        self.nameUTF8 = Array(name.utf8)
        self.type = type
        self.form = form
        self.optional = optional
    }

    /// An optional key.
    public static func maybe(_ name: String, _ type: DBusType, _ form: JSONForm = .plain) -> ItemField {
        ItemField(name, type, form, optional: true)
    }
}

/// How an item's value reads in JSON.
public indirect enum JSONForm: Sendable {
    /// Numbers, strings and booleans as themselves.
    case plain
    /// Unix seconds (`x`) written as `2024-05-01T08:00:00Z`.
    case date
    /// An `aa{sv}` of nested items.
    case items(ItemSchema)
    /// One nested item, an `a{sv}`.
    case object(ItemSchema)

    public var nestedSchema: ItemSchema? {
        switch self {
        case .items(let schema), .object(let schema): schema
        case .plain, .date: nil
        }
    }
}
