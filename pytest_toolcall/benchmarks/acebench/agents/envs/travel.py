"""The simulated airline: users, flights, reservations (no Wi-Fi or login involved).

Behaviour is the official one at 56dd66c, operation by operation, including what it gets wrong:
authentication failures crash booking, a cabin change is priced on the flight booked before the
call, a cancellation refunds to cash and keeps the reservation, seats never go back.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, ClassVar

from pytest_toolcall.benchmarks.acebench.agents.envs.texts import AIRLINE_CANCELLED, BUSINESS, ECONOMY, city, text

#: Cancellation "now" is fixed (the prompt claims 2024-07-15 08:00, the code uses this).
NOW = datetime(2024, 7, 14, 6, 0, 0)
BAG_FEE = 50
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"

# flight_no, origin, destination, depart, arrive, seats, economy, business (official order)
_FLIGHTS = (
    ("CA1234", "Beijing", "Shanghai", "2024-07-15 08:00:00", "2024-07-15 10:30:00", 5, 1200, 3000),
    ("MU5678", "Shanghai", "Beijing", "2024-07-16 09:00:00", "2024-07-16 11:30:00", 3, 1900, 3000),
    ("CZ4321", "Shanghai", "Beijing", "2024-07-16 20:00:00", "2024-07-16 22:00:00", 8, 2500, 4000),
    ("CZ4352", "Shanghai", "Beijing", "2024-07-17 20:00:00", "2024-07-17 22:00:00", 8, 1600, 2500),
    ("MU3561", "Beijing", "Nanjing", "2024-07-18 08:00:00", "2024-07-18 10:00:00", 8, 1500, 4000),
    ("MU1566", "Beijing", "Nanjing", "2024-07-18 20:00:00", "2024-07-18 22:00:00", 8, 1500, 4000),
    ("CZ1765", "Nanjing", "Shenzhen", "2024-07-17 20:30:00", "2024-07-17 22:00:00", 8, 1500, 2500),
    ("CZ1765", "Nanjing", "Shenzhen", "2024-07-18 12:30:00", "2024-07-18 15:00:00", 8, 1500, 2500),
    ("MH1765", "Xiamen", "Chengdu", "2024-07-17 12:30:00", "2024-07-17 15:00:00", 8, 1500, 2500),
    ("MH2616", "Chengdu", "Xiamen", "2024-07-18 18:30:00", "2024-07-18 21:00:00", 8, 1500, 2500),
    ("MH2616", "Chengdu", "Fuzhou", "2024-07-16 18:30:00", "2024-07-16 21:00:00", 8, 1500, 2500),
)
# reservation_id, user_id, flight_no, payment, business cabin?, bags, origin, destination.
# res_4 books MU2616, a flight that does not exist (official data).
_RESERVATIONS = (
    ("res_1", "user1", "CA1234", "bank", False, 1, "Beijing", "Shanghai"),
    ("res_2", "user1", "MU5678", "bank", True, 1, "Shanghai", "Beijing"),
    ("res_3", "user2", "MH1765", "bank", True, 1, "Xiamen", "Chengdu"),
    ("res_4", "user2", "MU2616", "bank", True, 1, "Chengdu", "Xiamen"),
)
# Free checked bags by membership and cabin (economy, business).
_ALLOWANCE = {"regular": (1, 2), "silver": (2, 3), "gold": (3, 3)}


class Travel:
    api: ClassVar[tuple[str, ...]] = (
        "get_flight_details",
        "get_user_details",
        "get_reservation_details",
        "authenticate_user",
        "get_baggage_allowance",
        "find_transfer_flights",
        "calculate_baggage_fee",
        "update_balance",
        "reserve_flight",
        "modify_flight",
        "cancel_reservation",
        "process_refund",
        "calculate_price_difference",
    )

    def __init__(self, lang: str) -> None:
        self._lang = lang
        self._economy = ECONOMY[lang]
        self._business = BUSINESS[lang]
        self.users: dict[str, dict[str, Any]] = {
            "user1": _user("Eve", "password123", 2000.0, 50000.0, "regular"),
            "user2": _user("Frank", "password456", 8000.0, 8000.0, "silver"),
            "user3": _user("Grace", "password789", 1000.0, 5000.0, "gold"),
        }
        self.flights: list[dict[str, Any]] = [
            {
                "flight_no": number,
                "origin": city(lang, origin),
                "destination": city(lang, destination),
                "depart_time": depart,
                "arrival_time": arrive,
                "status": "available",
                "seats_available": seats,
                "economy_price": economy,
                "business_price": business,
            }
            for number, origin, destination, depart, arrive, seats, economy, business in _FLIGHTS
        ]
        self.reservations: list[dict[str, Any]] = [
            {
                "reservation_id": rid,
                "user_id": uid,
                "flight_no": number,
                "payment_method": payment,
                "cabin": self._business if business else self._economy,
                "baggage": bags,
                "origin": city(lang, origin),
                "destination": city(lang, destination),
            }
            for rid, uid, number, payment, business, bags, origin, destination in _RESERVATIONS
        ]

    def _load(self, scenario: dict[str, Any]) -> None:
        """Travel takes nothing from ``initial_config`` (official ``_load_scenario`` is empty)."""

    def _t(self, key: str, **fields: Any) -> str:
        return text(self._lang, key, **fields)

    def _allowance_table(self) -> dict[str, dict[str, int]]:
        return {level: {self._economy: e, self._business: b} for level, (e, b) in _ALLOWANCE.items()}

    def _price(self, flight: dict[str, Any], cabin: Any) -> Any:
        """The economy price for the economy cabin name, the business price for ANY other value."""
        return flight["economy_price"] if cabin == self._economy else flight["business_price"]

    # --- queries -------------------------------------------------------------------------------

    def get_flight_details(self, origin: Any = None, destination: Any = None) -> Any:
        """Exact-match filter per truthy argument (flight status ignored)."""
        flights = self.flights
        if origin:
            flights = [f for f in flights if f["origin"] == origin]
        if destination:
            flights = [f for f in flights if f["destination"] == destination]
        if len(flights) == 0:
            return self._t("travel_no_direct")
        return [dict(f) for f in flights]

    def get_user_details(self, user_id: Any, password: Any) -> dict[str, Any]:
        user = self.users.get(user_id)
        if user and user["password"] == password:
            return {key: value for key, value in user.items() if key != "password"}
        return {"status": "error", "message": self._t("travel_bad_credentials")}

    def get_reservation_details(self, reservation_id: Any = None, user_id: Any = None) -> Any:
        """``reservation_id`` wins over ``user_id``; each reservation gets its first flight (or None)."""
        if reservation_id:
            found = [r for r in self.reservations if r["reservation_id"] == reservation_id]
        elif user_id:
            found = [r for r in self.reservations if r["user_id"] == user_id]
        else:
            return {"status": "error", "message": self._t("travel_need_id")}
        return [{**r, "flight_info": self._first_flight(r["flight_no"])} for r in found]

    def authenticate_user(self, user_id: Any, password: Any) -> dict[str, Any]:
        """The full user record, password included, or an error dict (which is truthy)."""
        user = self.users.get(user_id)
        if user and user["password"] == password:
            return user
        return {"status": "error", "message": self._t("travel_bad_credentials")}

    def get_baggage_allowance(self, membership_level: Any, cabin_class: Any) -> Any:
        return self._allowance_table().get(membership_level, {}).get(cabin_class, 0)

    def find_transfer_flights(self, origin_city: Any, transfer_city: Any, destination_city: Any) -> Any:
        """Every first leg x every second leg departing strictly after the first one lands."""
        first_legs = [
            f
            for f in self.flights
            if f["origin"] == origin_city and f["destination"] == transfer_city and f["status"] == "available"
        ]
        second_legs = [
            f
            for f in self.flights
            if f["origin"] == transfer_city and f["destination"] == destination_city and f["status"] == "available"
        ]
        pairs = []
        for first in first_legs:
            lands = datetime.strptime(first["arrival_time"], TIME_FORMAT)
            for second in second_legs:
                if lands < datetime.strptime(second["depart_time"], TIME_FORMAT):
                    pairs.append({"first_leg": first, "second_leg": second})
        return pairs if pairs else self._t("travel_no_transfer")

    def calculate_baggage_fee(self, membership_level: Any, cabin_class: Any, baggage_count: Any) -> Any:
        """KeyError for a membership or cabin outside the table (the booking crash path)."""
        free = self._allowance_table()[membership_level][cabin_class]
        return max(baggage_count - free, 0) * BAG_FEE

    # --- helpers the official class exposes publicly (a model can call them, with dict args) -----

    def update_balance(self, user: Any, payment_method: Any, amount: Any) -> bool:
        """Any other payment method changes nothing and reports success (official)."""
        if payment_method == "cash":
            if user["cash_balance"] + amount < 0:
                return False
            user["cash_balance"] += amount
        elif payment_method == "bank":
            if user["bank_balance"] + amount < 0:
                return False
            user["bank_balance"] += amount
        return True

    def process_refund(self, user: Any, amount: Any) -> None:
        """Always to the cash balance."""
        user["cash_balance"] += amount
        # The official method prints a notice naming the user; building it can raise KeyError.
        _notice = self._t("travel_refund_notice", name=user["user_name"], amount=amount)

    def calculate_price_difference(self, flight: Any, old_cabin: Any, new_cabin: Any) -> Any:
        prices = {self._economy: flight["economy_price"], self._business: flight["business_price"]}
        old_price = prices.get(old_cabin, 0)  # looked up before the new one, as officially
        return prices.get(new_cabin, 0) - old_price

    # --- bookings --------------------------------------------------------------------------------

    def reserve_flight(
        self, user_id: Any, password: Any, flight_no: Any, cabin: Any, payment_method: Any, baggage_count: Any
    ) -> str:
        user = self.authenticate_user(user_id, password)
        if not user:  # unreachable: the error dict is truthy, so bad credentials crash below
            return self._t("travel_auth_failed")
        # First available flight with that number; none -> TypeError on the price lookup (official).
        flight = next((f for f in self.flights if f["flight_no"] == flight_no and f["status"] == "available"), None)
        total = self._price(flight, cabin)  # type: ignore[arg-type]
        # KeyError('membership_level') after bad credentials, KeyError(cabin) for an unknown cabin.
        total += self.calculate_baggage_fee(user["membership_level"], cabin, baggage_count)
        if payment_method not in ["cash", "bank"]:
            return self._t("travel_bad_payment")
        balance_key = "cash_balance" if payment_method == "cash" else "bank_balance"
        if total > self.users.get(user_id)[balance_key]:  # type: ignore[index]
            return self._t("travel_cash_short" if payment_method == "cash" else "travel_bank_short")
        self.users.get(user_id)[balance_key] -= total  # type: ignore[index]
        flight["seats_available"] -= 1  # type: ignore[index]  # no zero check
        reservation_id = f"res_{len(self.reservations) + 1}"
        # No origin/destination on new reservations (official).
        self.reservations.append(
            {
                "reservation_id": reservation_id,
                "user_id": user_id,
                "flight_no": flight_no,
                "payment_method": payment_method,
                "cabin": cabin,
                "baggage": baggage_count,
            }
        )
        return self._t("travel_booked", reservation_id=reservation_id, total=total)

    def modify_flight(
        self,
        user_id: Any,
        reservation_id: Any,
        new_flight_no: Any = None,
        new_cabin: Any = None,
        add_baggage: Any = 0,
        new_payment_method: Any = None,
    ) -> str:
        reservation = next(
            (r for r in self.reservations if r["reservation_id"] == reservation_id and r["user_id"] == user_id), None
        )
        if not reservation:
            return self._t("travel_reservation_mismatch")
        # The flight booked BEFORE this call: the cabin change below is priced on it.
        current = self._first_flight(reservation["flight_no"])
        if not current:
            return self._t("travel_flight_unknown")
        payment_method = new_payment_method if new_payment_method else reservation["payment_method"]
        user = self.users[user_id]
        if not user:
            return self._t("travel_user_unknown")
        notes = []
        if new_flight_no and new_flight_no != reservation["flight_no"]:
            new_flight = self._first_flight(new_flight_no)
            if (
                new_flight
                and new_flight["origin"] == current["origin"]
                and new_flight["destination"] == current["destination"]
            ):
                reservation["flight_no"] = new_flight_no  # never charged or refunded
                notes.append(self._t("travel_flight_changed"))
            else:
                return self._t("travel_flight_change_failed")
        if new_cabin and new_cabin != reservation.get("cabin"):
            difference = self.calculate_price_difference(current, reservation["cabin"], new_cabin)
            reservation["cabin"] = new_cabin  # stored before payment, kept if payment fails
            if difference > 0:
                if self.update_balance(user, payment_method, -difference):
                    notes.append(self._t("travel_cabin_paid", amount=difference))
                else:
                    notes.append(self._t("travel_cabin_short"))
            elif difference < 0:
                self.update_balance(user, payment_method, -difference)
                notes.append(self._t("travel_cabin_refunded", amount=-difference))
        if add_baggage > 0:
            allowance = self.get_baggage_allowance(user["membership_level"], reservation["cabin"])
            bags = reservation.get("baggage", 0) + add_baggage
            # Charged on every bag above the allowance, including bags already paid for.
            cost = max(0, bags - allowance) * BAG_FEE
            if cost > 0:
                if self.update_balance(user, payment_method, -cost):
                    notes.append(self._t("travel_baggage_paid", amount=cost))
                else:
                    notes.append(self._t("travel_baggage_short"))
            reservation["baggage"] = bags  # updated even when the fee was not paid
        if not notes:
            notes.append(self._t("travel_no_fees"))
        return " ".join(notes)

    def cancel_reservation(self, user_id: Any, reservation_id: Any, reason: Any) -> str:
        """Refunds the current list price to cash; the reservation stays, the seat is not restored."""
        user = self.users.get(user_id, None)
        if not user:
            return self._t("travel_invalid_user")
        reservation = next(
            (r for r in self.reservations if r["reservation_id"] == reservation_id and r["user_id"] == user_id), None
        )
        if not reservation:
            return self._t("travel_invalid_reservation")
        flight = self._first_flight(reservation["flight_no"])
        if not flight:
            return self._t("travel_invalid_flight")
        departs = datetime.strptime(flight["depart_time"], TIME_FORMAT)
        if NOW > departs:
            return self._t("travel_used")
        price = self._price(flight, reservation["cabin"])
        if reason == AIRLINE_CANCELLED[self._lang]:
            self.process_refund(user, price)
            return self._t("travel_airline_cancel", refund=price)
        if departs - NOW > timedelta(days=1):
            self.process_refund(user, price)
            return self._t("travel_free_cancel", refund=price)
        fee = price * 0.1  # unreachable with the official flights (all depart > 24 h after NOW)
        self.process_refund(user, price - fee)
        return self._t("travel_fee_cancel", fee=fee, refund=price - fee)

    def _first_flight(self, flight_no: Any) -> dict[str, Any] | None:
        """Lookups by number take the first flight with it (CZ1765 and MH2616 exist twice)."""
        return next((f for f in self.flights if f["flight_no"] == flight_no), None)


def _user(name: str, password: str, cash: float, bank: float, level: str) -> dict[str, Any]:
    return {
        "user_name": name,
        "password": password,
        "cash_balance": cash,
        "bank_balance": bank,
        "membership_level": level,
    }
