"""The telecom user's phone: the user simulator's side of telecom's dual control, as the official
``TelecomUserDB`` and ``TelecomUserTools`` behave (tau2 1.0.1 ``domains/telecom/user_data_model.py``
and ``user_tools.py``), written anew.

In telecom the user simulator has tools too: they act on the user's device (airplane mode, mobile
data, SIM card, APN, VPN, Wi-Fi calling, app permissions, paying a bill the agent sent). Its state is
the user DB: the ``device`` and its ``surroundings`` (where the user is, what the carrier allows),
and the network status is recomputed from both after most changes.

Interface (what the telecom environment uses):

* ``UserDevice(db=None)``: a device in the shipped initial state (``data/telecom/user_db.toml``),
  or on the given ``TelecomUserDB`` (used as is, not copied).
* ``device.call(name, arguments) -> str``: a user tool call. Where the official tool raises, this
  raises the same exception type with the same text (``ValueError("Tool 'x' not found.")`` for an
  unknown tool, a ``TypeError`` naming ``TelecomUserTools.<tool>()`` for wrong arguments, ...): the
  environment answers ``Error: <exception>`` as officially.
* ``device.run_function(name, arguments)``: a function of the task's ``initialization_actions`` or
  ``env_assertions`` with ``env_type`` "user" (``set_user_info``, ``break_apn_settings``,
  ``assert_can_send_mms``, ...; tools too). Assertions return a bool, as officially; the
  environment compares it with ``assert_value``.
* ``device.surroundings``: the ``UserSurroundings`` the environment's ``sync_tools`` reads and sets:
  ``phone_number``, ``line_active``, ``roaming_allowed``, ``mobile_data_usage_exceeded``,
  ``payment_request`` (a ``PaymentRequest(bill_id=..., amount_due=...)`` with ``paid``).
* ``device.db_hash()``: the official hash of the user DB (``TelecomUserDB.get_hash``).
* ``USER_TOOLS`` (``"telecom_user"`` in ``data/tools.json``): the user tools' official schemas,
  ``mutates_state`` and ``tool_type``; ``device.specs`` is the same mapping.

The models are pydantic on purpose, field for field the official ones: the hash is of
``model_dump()``, so what validation coerces (loading, ``PaymentRequest``) and what a plain
assignment leaves unvalidated (a tool storing an argument as given) decide it; class names are the
official ones, as they appear in validation errors and in the VPN details the user reads.

One official quirk is not reproduced: the VPN a ``connect_vpn`` connects to is one object shared by
every device of the process, and ``break_vpn`` (a task's initialization) degrades it for all later
connections in the process, whatever the task. Here each device has its own: a ``break_vpn``
degrades the later connections of its device only, as officially in a process that runs one
simulation.
"""

from __future__ import annotations

import functools
import tomllib
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pytest_toolcall.benchmarks.tau2.environment import DATA, ToolSpec, tool_specs
from pytest_toolcall.benchmarks.tau2.models import db_hash

# --- the user DB ---------------------------------------------------------------------------------
# The enums are ``(str, Enum)`` as the official ones (not ``StrEnum``): their repr and format are in
# the texts the user reads.


class SimStatus(str, Enum):  # noqa: UP042
    ACTIVE = "active"
    MISSING = "missing"
    LOCKED_PIN = "locked_pin"
    LOCKED_PUK = "locked_puk"


class NetworkTechnology(str, Enum):  # noqa: UP042
    NONE = "none"
    TWO_G = "2G"
    THREE_G = "3G"
    FOUR_G = "4G"
    FIVE_G = "5G"


class NetworkModePreference(str, Enum):  # noqa: UP042
    FOUR_G_5G_PREFERRED = "4g_5g_preferred"
    FOUR_G_ONLY = "4g_only"
    THREE_G_ONLY = "3g_only"
    TWO_G_ONLY = "2g_only"


class SignalStrength(str, Enum):  # noqa: UP042
    NONE = "none"
    POOR = "poor"
    FAIR = "fair"
    GOOD = "good"
    EXCELLENT = "excellent"


class PerformanceLevel(str, Enum):  # noqa: UP042
    UNKNOWN = "unknown"
    POOR = "poor"
    FAIR = "fair"
    GOOD = "good"
    EXCELLENT = "excellent"


class NetworkStatus(str, Enum):  # noqa: UP042
    CONNECTED = "connected"
    SEARCHING = "searching"
    NO_SERVICE = "no_service"
    EMERGENCY_ONLY = "emergency_only"


class APNNames(str, Enum):  # noqa: UP042
    INTERNET = "internet"
    BROKEN = "broken"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class APNSettings(_Strict):
    apn_name: APNNames = APNNames.INTERNET
    reset_at_reboot: bool = False
    mms_apn: str | None = "mms"
    mmsc_url: str | None = "http://mms.carrier.com/mms/wapenc"
    mms_proxy: str | None = None
    mms_port: int | None = None


class VpnDetails(_Strict):
    server_address: str | None = None
    protocol: str | None = None
    server_performance: PerformanceLevel = Field(default=PerformanceLevel.UNKNOWN, validate_default=True)


class AppPermissions(_Strict):
    sms: bool = False
    storage: bool = False
    phone: bool = False
    network: bool = False


class AppStatus(_Strict):
    app_name: str
    permissions: AppPermissions = Field(default_factory=AppPermissions)


def _default_apps() -> dict[str, AppStatus]:
    return {
        "messaging": AppStatus(app_name="messaging", permissions=AppPermissions(sms=True, storage=True, phone=True)),
        "browser": AppStatus(app_name="browser", permissions=AppPermissions(network=True, storage=True)),
    }


class MockPhoneAttributes(_Strict):
    sim_card_status: SimStatus = Field(default=SimStatus.ACTIVE, validate_default=True)
    sim_card_missing: bool = False
    airplane_mode: bool = False
    network_signal_strength: SignalStrength = Field(default=SignalStrength.GOOD, validate_default=True)
    network_technology_connected: NetworkTechnology = Field(default=NetworkTechnology.FIVE_G, validate_default=True)
    network_connection_status: NetworkStatus = Field(default=NetworkStatus.CONNECTED, validate_default=True)
    battery_level: int = 80
    data_enabled: bool = True
    roaming_enabled: bool = False
    network_mode_preference: NetworkModePreference = Field(
        default=NetworkModePreference.FOUR_G_5G_PREFERRED, validate_default=True
    )
    active_apn_settings: APNSettings = Field(default_factory=APNSettings)
    wifi_enabled: bool = False
    wifi_connected: bool = False
    wifi_ssid: str | None = None
    wifi_signal_strength: SignalStrength = Field(default=SignalStrength.NONE, validate_default=True)
    wifi_calling_enabled: bool = False
    wifi_calling_mms_over_wifi: bool = False
    data_saver_mode: bool = False
    vpn_enabled_setting: bool = False
    vpn_connected: bool = False
    vpn_details: VpnDetails | None = None
    app_statuses: dict[str, AppStatus] = Field(default_factory=_default_apps)


class PaymentRequest(_Strict):
    bill_id: str
    amount_due: float
    paid: bool = False


def _default_signal() -> dict[NetworkTechnology, SignalStrength]:
    return {
        NetworkTechnology.TWO_G: SignalStrength.POOR,
        NetworkTechnology.THREE_G: SignalStrength.FAIR,
        NetworkTechnology.FOUR_G: SignalStrength.GOOD,
        NetworkTechnology.FIVE_G: SignalStrength.EXCELLENT,
    }


class UserSurroundings(_Strict):
    name: str | None = None
    phone_number: str | None = None
    is_abroad: bool = False
    roaming_allowed: bool = False
    signal_strength: dict[NetworkTechnology, SignalStrength] = Field(default_factory=_default_signal)
    mobile_data_usage_exceeded: bool = False
    line_active: bool = True
    payment_request: PaymentRequest | None = None


class TelecomUserDB(_Strict):
    device: MockPhoneAttributes = Field(default_factory=MockPhoneAttributes)
    surroundings: UserSurroundings = Field(default_factory=UserSurroundings)


@functools.cache
def _shipped_db() -> TelecomUserDB:
    with (DATA / "telecom" / "user_db.toml").open("rb") as handle:
        return TelecomUserDB.model_validate(tomllib.load(handle))


def shipped_user_db() -> TelecomUserDB:
    """The user DB every telecom simulation starts from (before the task's initialization)."""
    return _shipped_db().model_copy(deep=True)


# --- the tools -----------------------------------------------------------------------------------

_BARS = {
    SignalStrength.NONE: "\U0001f4f5 No Signal",
    SignalStrength.POOR: "\U0001f4f6\u00b9 Poor",
    SignalStrength.FAIR: "\U0001f4f6\u00b2 Fair",
    SignalStrength.GOOD: "\U0001f4f6\u00b3 Good",
    SignalStrength.EXCELLENT: "\U0001f4f6\u2074 Excellent",
}
#: Download speed range (Mbps) of each technology, and the share of it each signal strength gives.
_SPEED_RANGE = {
    NetworkTechnology.TWO_G: (0.1, 0.4),
    NetworkTechnology.THREE_G: (1.0, 5.0),
    NetworkTechnology.FOUR_G: (10.0, 100.0),
    NetworkTechnology.FIVE_G: (50.0, 500.0),
    NetworkTechnology.NONE: (0.0, 0.0),
}
_SIGNAL_SHARE = {
    SignalStrength.POOR: 0.2,
    SignalStrength.FAIR: 0.5,
    SignalStrength.GOOD: 0.8,
    SignalStrength.EXCELLENT: 1.0,
    SignalStrength.NONE: 0.0,
}
#: Speed classes: (upper bound, name, what the user is told).
_SPEED_CLASSES = (
    (1, "Very Poor", "Connection is very slow. Basic web browsing might be difficult."),
    (5, "Poor", "Connection is slow. Web browsing may be sluggish, streaming difficult."),
    (25, "Fair", "Connection is okay for web browsing and some standard definition streaming."),
    (100, "Good", "Connection is good for most activities, including HD streaming."),
    (float("inf"), "Excellent", "Connection is very fast."),
)
#: The technology each network mode connects to (a mode that is none of them: 4G).
_MODE_TECHNOLOGY = {
    NetworkModePreference.FOUR_G_ONLY: NetworkTechnology.FOUR_G,
    NetworkModePreference.THREE_G_ONLY: NetworkTechnology.THREE_G,
    NetworkModePreference.TWO_G_ONLY: NetworkTechnology.TWO_G,
}
_SIM_TEXT = {
    SimStatus.ACTIVE: "Your SIM card is active and working.",
    SimStatus.MISSING: "No SIM card detected in the phone.",
    SimStatus.LOCKED_PIN: "The SIM card is locked with a PIN code.",
    SimStatus.LOCKED_PUK: "The SIM card is locked with a PUK code.",
}


def _on(flag: Any) -> str:
    return "ON" if flag else "OFF"


def _yes(flag: Any) -> str:
    return "Yes" if flag else "No"


class TelecomUserTools:
    """The official toolkit's methods, names and signatures (a wrong argument fails with the same
    ``TypeError`` text). A tool's text ends with the status bar where the official one does."""

    def __init__(self, db: TelecomUserDB) -> None:
        self.db = db
        # the VPN that connect_vpn connects to (one per device here, see the module docstring)
        self._vpn = VpnDetails(
            server_address="192.168.1.1", protocol="OpenVPN", server_performance=PerformanceLevel.EXCELLENT
        )

    @property
    def device(self) -> MockPhoneAttributes:
        return self.db.device

    @property
    def surroundings(self) -> UserSurroundings:
        return self.db.surroundings

    # --- what the state implies ------------------------------------------------------------------

    def _sim_status(self) -> SimStatus:
        return SimStatus.MISSING if self.device.sim_card_missing else self.device.sim_card_status

    def _status_bar(self) -> str:
        phone = self.device
        parts = []
        if phone.airplane_mode:
            parts.append("\u2708\ufe0f Airplane Mode")
        else:
            parts.append(_BARS.get(phone.network_signal_strength, _BARS[SignalStrength.NONE]))
            has_network = phone.network_technology_connected != NetworkTechnology.NONE
            if has_network:
                parts.append(phone.network_technology_connected.value)
            if phone.data_enabled and has_network:
                parts.append("\U0001f4f1 Data Enabled")
                if phone.data_saver_mode:
                    parts.append("\U0001f53d Data Saver")
            else:
                parts.append("\U0001f4f5 Data Disabled")
        if phone.wifi_enabled and phone.wifi_connected:
            parts.append(f"\U0001f4e1 Connected to {phone.wifi_ssid}" if phone.wifi_ssid else "\U0001f4e1 Enabled")
        if phone.vpn_connected:
            parts.append("\U0001f512 VPN Connected")
        parts.append(f"\U0001f50b {phone.battery_level}%")
        return " | ".join(parts)

    def _with_bar(self, text: str) -> str:
        return f"{text}\nStatus Bar: {self._status_bar()}"

    def _mobile_data_working(self) -> bool:
        phone, around = self.device, self.surroundings
        if phone.airplane_mode or phone.network_signal_strength == SignalStrength.NONE:
            return False
        if phone.network_connection_status == NetworkStatus.NO_SERVICE:
            return False
        if around.is_abroad and not (phone.roaming_enabled and around.roaming_allowed):
            return False
        return bool(phone.data_enabled) and not around.mobile_data_usage_exceeded

    def _speed(self) -> tuple[float | None, str]:
        """The simulated download speed (rounded to 2 decimals) and its class name."""
        phone = self.device
        if not self._mobile_data_working():
            return None, "No Connection"
        slow_vpn = (
            phone.vpn_connected and phone.vpn_details and phone.vpn_details.server_performance == PerformanceLevel.POOR
        )
        factor = 0.1 if slow_vpn else 1.0
        if phone.data_saver_mode:
            factor *= 0.2
        low, high = _SPEED_RANGE.get(phone.network_technology_connected, (0.0, 0.0))
        # the same float operations in the same order as officially: the rounding depends on it
        speed = round((low + high) / 2.0 * _SIGNAL_SHARE.get(phone.network_signal_strength, 0.0) * factor, 2)
        name = next(name for bound, name, _ in _SPEED_CLASSES if speed < bound)
        return speed, name

    def _mms_possible(self) -> bool:
        phone = self.device
        if not self._mobile_data_working() or phone.network_technology_connected == NetworkTechnology.TWO_G:
            return False
        if phone.wifi_calling_enabled and phone.wifi_calling_mms_over_wifi:
            return False  # the carrier does not carry MMS over Wi-Fi calling
        if phone.active_apn_settings.mmsc_url is None:
            return False
        messaging = phone.app_statuses.get("messaging")
        if messaging is None:
            return False
        return messaging.permissions.storage and messaging.permissions.sms

    def simulate_network_search(self) -> None:
        """Recompute the cellular connection from the SIM, the network mode, the signal where the
        user is, airplane mode, the APN and whether the carrier's line is active."""
        phone, around = self.device, self.surroundings
        if self._sim_status() == SimStatus.ACTIVE:
            phone.network_connection_status = NetworkStatus.CONNECTED
            mode = phone.network_mode_preference
            if mode == NetworkModePreference.FOUR_G_5G_PREFERRED:
                five_g = around.signal_strength.get(NetworkTechnology.FIVE_G, SignalStrength.NONE)
                technology = NetworkTechnology.FOUR_G if five_g == SignalStrength.NONE else NetworkTechnology.FIVE_G
            else:
                technology = next((t for m, t in _MODE_TECHNOLOGY.items() if mode == m), NetworkTechnology.FOUR_G)
            phone.network_technology_connected = technology
            phone.network_signal_strength = around.signal_strength.get(technology, SignalStrength.NONE)
        else:
            self._lose_network()
        if phone.airplane_mode:
            self._lose_network()
        if phone.active_apn_settings.apn_name == APNNames.BROKEN:
            self._lose_network()
        if not around.line_active:
            self._lose_network()

    def _lose_network(self) -> None:
        self.device.network_connection_status = NetworkStatus.NO_SERVICE
        self.device.network_technology_connected = NetworkTechnology.NONE
        self.device.network_signal_strength = SignalStrength.NONE

    # --- status tools ----------------------------------------------------------------------------

    def check_status_bar(self) -> str:
        return f"Status Bar: {self._status_bar()}"

    def check_network_status(self) -> str:
        phone = self.device
        lines = [
            f"Airplane Mode: {_on(phone.airplane_mode)}",
            f"SIM Card Status: {self._sim_status().value}",
            f"Cellular Connection: {phone.network_connection_status.value}",
            f"Cellular Signal: {phone.network_signal_strength.value}",
            f"Cellular Network Type: {phone.network_technology_connected.value}",
            f"Mobile Data Enabled: {_yes(phone.data_enabled)}",
            f"Data Roaming Enabled: {_yes(phone.roaming_enabled)}",
            f"Wi-Fi Radio: {_on(phone.wifi_enabled)}",
            f"Wi-Fi Connected: {_yes(phone.wifi_connected)}",
        ]
        if phone.wifi_connected:
            lines.append(f"Connected Wi-Fi Network: {phone.wifi_ssid}")
        return "\n".join(lines)

    def check_network_mode_preference(self) -> str:
        return f"Network Mode Preference: {self.device.network_mode_preference.value}"

    def set_network_mode_preference(self, mode: Any) -> str:
        chosen = mode
        try:
            if isinstance(chosen, str):
                chosen = NetworkModePreference(chosen)
            # a value that is not text is stored as given, as officially (and fails below)
            self.device.network_mode_preference = chosen
            self.simulate_network_search()
        except ValueError:
            chosen = None
        if chosen is None:
            options = ", ".join(m.value for m in NetworkModePreference)
            return self._with_bar(
                f"Failed to set network mode: '{mode}' is not a valid option. Please use one of: {options}"
            )
        return self._with_bar(f"Preferred Network Mode set to: {chosen.value}")

    def run_speed_test(self) -> str:
        speed, name = self._speed()
        if speed is None:
            return f"Speed test failed: {name or 'Could not determine speed'}."
        advice = next(text for _, label, text in _SPEED_CLASSES if label == name)
        return f"Speed Test Result: {speed:.2f} Mbps ({name}). {advice}"

    # --- airplane mode ---------------------------------------------------------------------------

    def _flip_airplane_mode(self) -> bool:
        phone = self.device
        was_on = phone.airplane_mode
        phone.airplane_mode = not was_on
        if was_on:
            phone.network_connection_status = NetworkStatus.SEARCHING
        if not was_on or phone.wifi_enabled:
            phone.wifi_connected = False
            phone.wifi_ssid = None
            phone.wifi_signal_strength = SignalStrength.NONE
        if not was_on and phone.vpn_connected:
            self._drop_vpn()
        self.simulate_network_search()
        return phone.airplane_mode

    def toggle_airplane_mode(self) -> str:
        return self._with_bar(f"Airplane Mode is now {_on(self._flip_airplane_mode())}.")

    def turn_airplane_mode_on(self) -> str:
        if not self._flip_airplane_mode():
            self._flip_airplane_mode()
        return "Airplane Mode is now ON."

    def turn_airplane_mode_off(self) -> str:
        if self._flip_airplane_mode():
            self._flip_airplane_mode()
        return "Airplane Mode is now OFF."

    # --- SIM card --------------------------------------------------------------------------------

    def check_sim_status(self) -> str:
        status = self._sim_status()
        return _SIM_TEXT.get(status, f"Unknown SIM status: {status.value}")

    def reseat_sim_card(self) -> str:
        self.device.sim_card_missing = False
        self.simulate_network_search()
        return self._with_bar("SIM card re-seated successfully.")

    def unseat_sim_card(self) -> str:
        self.device.sim_card_missing = True
        self.simulate_network_search()
        return "SIM card un-seated successfully."

    def lock_sim_card(self, mode: Literal["pin", "puk"]) -> str:
        if mode == "pin":
            self.device.sim_card_status = SimStatus.LOCKED_PIN
        elif mode == "puk":
            self.device.sim_card_status = SimStatus.LOCKED_PUK
        self.simulate_network_search()
        return f"SIM card locked successfully in {mode} mode."

    # --- mobile data, roaming, data saver --------------------------------------------------------

    def _flip_data(self) -> bool:
        self.device.data_enabled = not self.device.data_enabled
        self.simulate_network_search()
        return self.device.data_enabled

    def toggle_data(self) -> str:
        return self._with_bar(f"Mobile Data is now {_on(self._flip_data())}.")

    def turn_data_on(self) -> str:
        self.device.data_enabled = True
        return "Data connection restored."

    def turn_data_off(self) -> str:
        if self._flip_data():
            self._flip_data()
        return "Data connection broken."

    def _flip_roaming(self) -> bool:
        self.device.roaming_enabled = not self.device.roaming_enabled
        self.simulate_network_search()
        return self.device.roaming_enabled

    def toggle_roaming(self) -> str:
        return self._with_bar(f"Data Roaming is now {_on(self._flip_roaming())}.")

    def turn_roaming_on(self) -> str:
        if not self._flip_roaming():
            self._flip_roaming()
        return "Data Roaming is now ON."

    def turn_roaming_off(self) -> str:
        if self._flip_roaming():
            self._flip_roaming()
        return "Data Roaming is now OFF."

    def check_data_restriction_status(self) -> str:
        if self.device.data_saver_mode:
            return "Data Saver mode is ON (limits data usage)."
        return "Data Saver mode is OFF."

    def _flip_data_saver(self) -> bool:
        self.device.data_saver_mode = not self.device.data_saver_mode
        return self.device.data_saver_mode

    def toggle_data_saver_mode(self) -> str:
        return self._with_bar(f"Data Saver Mode is now {_on(self._flip_data_saver())}.")

    def turn_data_saver_mode_on(self) -> str:
        if not self._flip_data_saver():
            self._flip_data_saver()
        return "Data Saver Mode is now ON."

    def turn_data_saver_mode_off(self) -> str:
        if self._flip_data_saver():
            self._flip_data_saver()
        return "Data Saver Mode is now OFF."

    # --- APN -------------------------------------------------------------------------------------

    def check_apn_settings(self) -> str:
        settings = self.device.active_apn_settings.model_copy(deep=True)
        name = settings.apn_name.value or "Not Set"
        url = settings.mmsc_url or "Not Set"
        return (
            f"Current APN Name: {name}\nMMSC URL (for picture messages): {url}\n"
            "(These are technical settings, usually best left unchanged.)"
        )

    def set_apn_settings(self, apn_settings: Any) -> str:
        settings = APNSettings(**apn_settings) if isinstance(apn_settings, dict) else apn_settings
        # anything else is stored as given, as officially (and fails on reading its name)
        self.device.active_apn_settings = settings
        text = f"APN settings set to: {settings.apn_name.value}"
        self.simulate_network_search()
        return self._with_bar(text)

    def reset_apn_settings(self) -> str:
        self.device.active_apn_settings.reset_at_reboot = True  # the defaults come back at the next reboot
        self.simulate_network_search()
        return self._with_bar("APN settings will reset at reboot.")

    def break_apn_settings(self) -> str:
        self.device.active_apn_settings.apn_name = APNNames.BROKEN
        self.simulate_network_search()
        return "APN settings broken. Please call reset_apn_settings() to fix."

    def break_apn_mms_setting(self) -> str:
        self.device.active_apn_settings.mmsc_url = None
        return "APN MMS setting broken. Please call reset_apn_settings() to fix."

    # --- Wi-Fi and Wi-Fi calling -----------------------------------------------------------------

    def check_wifi_status(self) -> str:
        phone = self.device
        if not phone.wifi_enabled:
            return "Wi-Fi is turned OFF."
        if phone.wifi_connected:
            strength = phone.wifi_signal_strength.value
            return f"Wi-Fi is ON and connected to '{phone.wifi_ssid}'. Signal strength: {strength}."
        return "Wi-Fi is ON but not connected to any network."

    def toggle_wifi(self) -> str:
        phone = self.device
        if phone.airplane_mode:
            return self._with_bar("Cannot change Wi-Fi settings while Airplane Mode is ON.")
        phone.wifi_enabled = not phone.wifi_enabled
        if not phone.wifi_enabled:
            phone.wifi_connected = False
            phone.wifi_ssid = None
            phone.wifi_signal_strength = SignalStrength.NONE
        return self._with_bar(f"Wi-Fi is now {_on(phone.wifi_enabled)}.")

    def check_wifi_calling_status(self) -> str:
        return f"Wi-Fi Calling is currently turned {_on(self.device.wifi_calling_enabled)}."

    def toggle_wifi_calling(self) -> str:
        self.device.wifi_calling_enabled = not self.device.wifi_calling_enabled
        return self._with_bar(f"Wi-Fi Calling is now {_on(self.device.wifi_calling_enabled)}.")

    def set_wifi_calling(self, enabled: bool, mms_over_wifi: bool | None = None) -> str:
        if self.device.wifi_calling_enabled != enabled:
            self.device.wifi_calling_enabled = not self.device.wifi_calling_enabled
        text = f"Wi-Fi Calling is now {_on(enabled)}."
        if mms_over_wifi is not None:
            self.device.wifi_calling_mms_over_wifi = mms_over_wifi
            text += f"\nMMS over Wi-Fi is now {_on(mms_over_wifi)}."
        return text

    # --- VPN -------------------------------------------------------------------------------------

    def check_vpn_status(self) -> str:
        phone = self.device
        if phone.vpn_connected:
            details = phone.vpn_details.model_dump() if phone.vpn_details else None
            if details:
                # the official text shows the dumped dict as Python prints it (enum reprs included)
                return f"VPN is ON and connected. Details: {details}"
            return "VPN is ON and connected (no specific details available)."
        if phone.vpn_enabled_setting:
            return "VPN is turned ON in settings, but currently not connected."
        return "VPN is turned OFF."

    def connect_vpn(self) -> str:
        if self.device.vpn_connected:
            return "VPN already connected."
        self.device.vpn_connected = True
        self.device.vpn_details = self._vpn
        return self._with_bar("VPN connected successfully.")

    def _drop_vpn(self) -> bool:
        if not self.device.vpn_connected:
            return False
        self.device.vpn_connected = False
        self.device.vpn_details = None
        return True

    def disconnect_vpn(self) -> str:
        done = self._drop_vpn()
        return self._with_bar("VPN disconnected successfully." if done else "No active VPN connection to disconnect.")

    def break_vpn(self) -> str:
        self.connect_vpn()
        self.device.vpn_details.server_performance = PerformanceLevel.POOR  # type: ignore[union-attr]
        return "VPN connection broken."

    # --- apps ------------------------------------------------------------------------------------

    @staticmethod
    def _granted(permissions: AppPermissions) -> list[str]:
        return [name.replace("_", " ").lower() for name, allowed in permissions.model_dump().items() if allowed]

    def check_installed_apps(self) -> str:
        return f"The following apps are installed on the phone: {', '.join(self.device.app_statuses)}"

    def check_app_status(self, app_name: str) -> str:
        app = self.device.app_statuses.get(app_name)
        if not app:
            return f"App '{app_name}' not found on this phone."
        granted = self._granted(app.permissions)
        lines = [f"Status for App: {app_name}"]
        if granted:
            lines += [" - Permissions Granted:", *(f"   - {name}" for name in granted)]
        else:
            lines.append(" - Permissions: None granted.")
        return "\n".join(lines)

    def check_app_permissions(self, app_name: str) -> str:
        app = self.device.app_statuses.get(app_name)
        if not app:
            return f"App '{app_name}' not found on this phone."
        granted = self._granted(app.permissions)
        if not granted:
            return f"App '{app_name}' currently has no permissions granted."
        return f"App '{app_name}' has permission for: {', '.join(granted)}."

    def grant_app_permission(self, app_name: str, permission: str) -> str:
        app = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        if not app:
            return self._with_bar(f"Error. App '{app_name}' not found. Cannot grant permission.")
        known = list(app.permissions.model_dump())
        if permission not in known:
            return self._with_bar(
                f"Error. Permission '{permission}' not tracked for app '{app_name}', available permissions: {known}"
            )
        setattr(app.permissions, permission, True)
        return self._with_bar(f"Success. Permission '{permission}' granted to app '{app_name}'.")

    def remove_app_permission(self, app_name: str, permission: str) -> tuple[bool, str]:
        app = self.device.app_statuses.get(app_name)
        permission = permission.lower()
        if not app:
            return False, f"App '{app_name}' not found. Cannot remove permission."
        if not hasattr(app.permissions, permission):
            return False, f"Permission '{permission}' not tracked for app '{app_name}'."
        setattr(app.permissions, permission, False)
        return True, f"Permission '{permission}' removed from app '{app_name}'."

    def can_send_mms(self) -> str:
        if self._mms_possible():
            return "Your messaging app can send MMS messages."
        return "Your messaging app cannot send MMS messages."

    # --- reboot ----------------------------------------------------------------------------------

    def reboot_device(self) -> str:
        lines = []
        if self.device.active_apn_settings.reset_at_reboot:
            lines.append("Resetting APN settings...")
            self.device.active_apn_settings = APNSettings()
        lines.append("Restarting network services...")
        self.device.network_connection_status = NetworkStatus.SEARCHING
        self.simulate_network_search()
        return self._with_bar("\n".join(lines))

    # --- payment ---------------------------------------------------------------------------------

    def check_payment_request(self) -> str:
        request = self.surroundings.payment_request
        if request is None:
            return "No payment request has been made."
        return f"You have a payment request for bill {request.bill_id} of {request.amount_due} USD."

    def make_payment(self) -> str:
        request = self.surroundings.payment_request
        if request is None:
            return "You do not have a payment request."
        request.paid = True  # the environment's sync marks the bill paid and clears the request
        return f"Payment of {request.amount_due} USD has been made for bill {request.bill_id}."

    # --- the scenario (task initialization) ------------------------------------------------------

    def set_user_info(self, name: str, phone_number: str) -> None:
        self.surroundings.name = name
        self.surroundings.phone_number = phone_number

    def set_user_location(self, abroad: bool) -> None:
        self.surroundings.is_abroad = abroad

    # --- assertions (env_assertions) -------------------------------------------------------------

    def assert_airplane_mode_status(self, expected_status: bool) -> bool:
        return self.device.airplane_mode == expected_status

    def assert_service_status(self, expected_status: str) -> bool:
        return self.device.network_connection_status == NetworkStatus(expected_status)

    def assert_mobile_data_status(self, expected_status: bool) -> bool:
        return self._mobile_data_working() == expected_status

    def assert_mobile_roaming_status(self, expected_status: bool) -> bool:
        return self.device.roaming_enabled == expected_status

    def assert_mobile_data_saver_mode_status(self, expected_status: bool) -> bool:
        return self.device.data_saver_mode == expected_status

    def assert_internet_speed(self, expected_speed: float, expected_desc: str | None = None) -> bool:
        speed, name = self._speed()
        fast_enough = (speed or 0.0) >= expected_speed
        if expected_desc is None:
            return fast_enough
        return fast_enough and name.lower() == expected_desc.lower()

    def assert_internet_not_excellent(self) -> bool:
        return self._speed()[1].lower() != "excellent"

    def assert_can_send_mms(self, expected_status: bool) -> bool:
        return self._mms_possible() == expected_status

    def assert_mobile_data_usage_exceeded(self, expected_status: bool) -> bool:
        return self.surroundings.mobile_data_usage_exceeded == expected_status


#: The non-tool functions of the official toolkit that a task's initialization or assertions call.
FUNCTIONS = (
    "set_user_info",
    "set_user_location",
    "simulate_network_search",
    "turn_airplane_mode_on",
    "turn_airplane_mode_off",
    "unseat_sim_card",
    "lock_sim_card",
    "turn_data_on",
    "turn_data_off",
    "turn_roaming_on",
    "turn_roaming_off",
    "turn_data_saver_mode_on",
    "turn_data_saver_mode_off",
    "break_apn_settings",
    "break_apn_mms_setting",
    "set_wifi_calling",
    "break_vpn",
    "remove_app_permission",
    "assert_airplane_mode_status",
    "assert_service_status",
    "assert_mobile_data_status",
    "assert_mobile_roaming_status",
    "assert_mobile_data_saver_mode_status",
    "assert_internet_speed",
    "assert_internet_not_excellent",
    "assert_can_send_mms",
    "assert_mobile_data_usage_exceeded",
)
USER_TOOLS = "telecom_user"


class UserDevice:
    """The user's phone of one simulation (see the module docstring)."""

    def __init__(self, db: TelecomUserDB | None = None) -> None:
        self.db = shipped_user_db() if db is None else db
        self.tools = TelecomUserTools(self.db)
        self.specs: dict[str, ToolSpec] = tool_specs(USER_TOOLS)

    @property
    def surroundings(self) -> UserSurroundings:
        return self.db.surroundings

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        if name not in self.specs:
            raise ValueError(f"Tool '{name}' not found.")
        result: str = getattr(self.tools, name)(**arguments)
        return result

    def run_function(self, name: str, arguments: dict[str, Any]) -> Any:
        if name not in FUNCTIONS and name not in self.specs:
            raise AttributeError(f"'TelecomUserTools' object has no attribute '{name}'")
        return getattr(self.tools, name)(**arguments)

    def db_hash(self) -> str:
        return db_hash(self.db)
