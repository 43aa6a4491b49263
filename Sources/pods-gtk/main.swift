// pods-gtk: Pods' window, a client of podsd (see PodsWindow).
import Foundation
import PodsWindow

exit(WindowApp().run())
