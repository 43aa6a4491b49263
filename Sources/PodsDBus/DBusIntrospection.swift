/// Builds `org.freedesktop.DBus.Introspectable` XML from interface descriptions.
enum DBusIntrospection {
    static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    static func xml(interfaces: [DBusInterface], children: [String]) -> String {
        var out = doctype + "<node>\n"
        out += standardInterfaces
        for interface in interfaces {
            out += "  <interface name=\"\(escape(interface.name))\">\n"
            for method in interface.methods {
                out += "    <method name=\"\(escape(method.name))\">\n"
                for argument in method.inputs { out += argumentXML(argument, direction: "in") }
                for argument in method.outputs { out += argumentXML(argument, direction: "out") }
                out += "    </method>\n"
            }
            for signal in interface.signals {
                out += "    <signal name=\"\(escape(signal.name))\">\n"
                for argument in signal.arguments { out += argumentXML(argument, direction: nil) }
                out += "    </signal>\n"
            }
            for property in interface.properties {
                let open = "    <property name=\"\(escape(property.name))\" type=\"\(escape(property.type.signature))\" access=\"\(property.access)\""
                if property.changeSignal == .emitsValue {
                    out += open + "/>\n"
                } else {
                    out += open + ">\n"
                    out += "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"\(property.changeSignal.rawValue)\"/>\n"
                    out += "    </property>\n"
                }
            }
            out += "  </interface>\n"
        }
        for child in children {
            out += "  <node name=\"\(escape(child))\"/>\n"
        }
        return out + "</node>\n"
    }

    private static func argumentXML(_ argument: DBusArgument, direction: String?) -> String {
        let directionAttribute = direction.map { " direction=\"\($0)\"" } ?? ""
        let open = "      <arg name=\"\(escape(argument.name))\" type=\"\(escape(argument.type.signature))\"\(directionAttribute)"
        guard !argument.annotations.isEmpty else { return open + "/>\n" }
        var out = open + ">\n"
        for (name, value) in argument.annotations.sorted(by: { $0.key < $1.key }) {
            out += "        <annotation name=\"\(escape(name))\" value=\"\(escape(value))\"/>\n"
        }
        return out + "      </arg>\n"
    }

    private static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }

    private static let standardInterfaces = """
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg name="xml_data" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg name="machine_uuid" type="s" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="properties" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface_name" type="s" direction="in"/>
              <arg name="property_name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface_name" type="s"/>
              <arg name="changed_properties" type="a{sv}"/>
              <arg name="invalidated_properties" type="as"/>
            </signal>
          </interface>

        """
}
