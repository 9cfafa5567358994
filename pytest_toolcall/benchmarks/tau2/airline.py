"""The airline tools: the official behaviour (tau2 1.0.1 ``domains/airline/tools.py``), written anew.

What a tool returns and the text of what it raises are the official ones, because the agent reads
them and a replay compares them. Method names and signatures are the official ones too: a call
with a missing or unknown argument fails with the same ``TypeError`` text.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from pytest_toolcall.benchmarks.tau2.calculator import calculate
from pytest_toolcall.benchmarks.tau2.models import (
    AirportCode,
    Certificate,
    DirectFlight,
    Flight,
    FlightDateStatusAvailable,
    FlightDB,
    FlightInfo,
    Passenger,
    Payment,
    Reservation,
    ReservationFlight,
    User,
)

AIRPORTS = (
    ("SFO", "San Francisco"),
    ("JFK", "New York"),
    ("LAX", "Los Angeles"),
    ("ORD", "Chicago"),
    ("DFW", "Dallas"),
    ("DEN", "Denver"),
    ("SEA", "Seattle"),
    ("ATL", "Atlanta"),
    ("MIA", "Miami"),
    ("BOS", "Boston"),
    ("PHX", "Phoenix"),
    ("IAH", "Houston"),
    ("LAS", "Las Vegas"),
    ("MCO", "Orlando"),
    ("EWR", "Newark"),
    ("CLT", "Charlotte"),
    ("MSP", "Minneapolis"),
    ("DTW", "Detroit"),
    ("PHL", "Philadelphia"),
    ("LGA", "LaGuardia"),
)
#: The fixed clock and the ids the official tools hand out (at most three of each per task).
NOW = "2024-05-15T15:00:00"
NEW_RESERVATION_IDS = ("HATHAT", "HATHAU", "HATHAV")
NEW_CERTIFICATE_IDS = ("certificate_3221322", "certificate_3221323", "certificate_3221324")


class AirlineTools:
    def __init__(self, db: FlightDB) -> None:
        self.db = db

    # --- lookups ---------------------------------------------------------------------------------

    def _get_user(self, user_id: str) -> User:
        if user_id not in self.db.users:
            raise ValueError(f"User {user_id} not found")
        return self.db.users[user_id]

    def _get_reservation(self, reservation_id: str) -> Reservation:
        if reservation_id not in self.db.reservations:
            raise ValueError(f"Reservation {reservation_id} not found")
        return self.db.reservations[reservation_id]

    def _get_flight(self, flight_number: str) -> Flight:
        if flight_number not in self.db.flights:
            raise ValueError(f"Flight {flight_number} not found")
        return self.db.flights[flight_number]

    def _get_flight_instance(self, flight_number: str, date: str) -> Any:
        flight = self._get_flight(flight_number)
        if date not in flight.dates:
            raise ValueError(f"Flight {flight_number} not found on date {date}")
        return flight.dates[date]

    def _search_direct_flight(
        self, date: str, origin: str | None = None, destination: str | None = None, leave_after: str | None = None
    ) -> list[DirectFlight]:
        results = []
        for flight in self.db.flights.values():
            if (
                (origin is None or flight.origin == origin)
                and (destination is None or flight.destination == destination)
                and date in flight.dates
                and flight.dates[date].status == "available"
                and (leave_after is None or flight.scheduled_departure_time_est >= leave_after)
            ):
                instance: Any = flight.dates[date]
                results.append(
                    DirectFlight(
                        flight_number=flight.flight_number,
                        origin=flight.origin,
                        destination=flight.destination,
                        status="available",
                        scheduled_departure_time_est=flight.scheduled_departure_time_est,
                        scheduled_arrival_time_est=flight.scheduled_arrival_time_est,
                        available_seats=instance.available_seats,
                        prices=instance.prices,
                    )
                )
        return results

    def _payment_for_update(self, user: User, payment_id: str, total_price: int) -> Payment | None:
        if payment_id not in user.payment_methods:
            raise ValueError("Payment method not found")
        method = user.payment_methods[payment_id]
        if method.source == "certificate":
            raise ValueError("Certificate cannot be used to update reservation")
        if method.source == "gift_card" and method.amount < total_price:
            raise ValueError("Gift card balance is not enough")
        if method.source == "gift_card":
            method.amount -= total_price
        return Payment(payment_id=payment_id, amount=total_price) if total_price != 0 else None

    # --- tools -----------------------------------------------------------------------------------

    def book_reservation(
        self,
        user_id: str,
        origin: str,
        destination: str,
        flight_type: str,
        cabin: str,
        flights: list[Any],
        passengers: list[Any],
        payment_methods: list[Any],
        total_baggages: int,
        nonfree_baggages: int,
        insurance: str,
    ) -> Reservation:
        if all(isinstance(flight, dict) for flight in flights):
            flights = [FlightInfo(**flight) for flight in flights]
        if all(isinstance(passenger, dict) for passenger in passengers):
            passengers = [Passenger(**passenger) for passenger in passengers]
        if all(isinstance(method, dict) for method in payment_methods):
            payment_methods = [Payment(**method) for method in payment_methods]
        user = self._get_user(user_id)
        reservation_id = next((r for r in NEW_RESERVATION_IDS if r not in self.db.reservations), None)
        if reservation_id is None:
            raise ValueError("Too many reservations")
        reservation = Reservation(
            reservation_id=reservation_id,
            user_id=user_id,
            origin=origin,
            destination=destination,
            flight_type=flight_type,  # type: ignore[arg-type]
            cabin=cabin,  # type: ignore[arg-type]
            flights=[],
            passengers=deepcopy(passengers),
            payment_history=deepcopy(payment_methods),
            created_at=NOW,
            total_baggages=total_baggages,
            nonfree_baggages=nonfree_baggages,
            insurance=insurance,  # type: ignore[arg-type]
        )
        total_price = 0
        instances = []
        for info in flights:
            flight = self._get_flight(info.flight_number)
            instance = self._get_flight_instance(flight_number=info.flight_number, date=info.date)
            if not isinstance(instance, FlightDateStatusAvailable):
                raise ValueError(f"Flight {info.flight_number} not available on date {info.date}")
            if instance.available_seats[cabin] < len(passengers):  # type: ignore[index]
                raise ValueError(f"Not enough seats on flight {info.flight_number}")
            price = instance.prices[cabin]  # type: ignore[index]
            reservation.flights.append(
                ReservationFlight(
                    origin=flight.origin,
                    destination=flight.destination,
                    flight_number=info.flight_number,
                    date=info.date,
                    price=price,
                )
            )
            instances.append(instance)
            total_price += price * len(passengers)
        if insurance == "yes":
            total_price += 30 * len(passengers)
        total_price += 50 * nonfree_baggages
        for method in payment_methods:
            if method.payment_id not in user.payment_methods:
                raise ValueError(f"Payment method {method.payment_id} not found")
            stored = user.payment_methods[method.payment_id]
            if stored.source in {"gift_card", "certificate"} and stored.amount < method.amount:
                raise ValueError(f"Not enough balance in payment method {method.payment_id}")
        total_payment = sum(method.amount for method in payment_methods)
        if total_payment != total_price:
            raise ValueError(f"Payment amount does not add up, total price is {total_price}, but paid {total_payment}")
        for method in payment_methods:
            stored = user.payment_methods[method.payment_id]
            if stored.source == "gift_card":
                stored.amount -= method.amount
            elif stored.source == "certificate":
                user.payment_methods.pop(method.payment_id)
        for instance in instances:
            instance.available_seats[cabin] -= len(passengers)  # type: ignore[index]
        self.db.reservations[reservation_id] = reservation
        self.db.users[user_id].reservations.append(reservation_id)
        return reservation

    def calculate(self, expression: str) -> str:
        return calculate(expression)

    def cancel_reservation(self, reservation_id: str) -> Reservation:
        reservation = self._get_reservation(reservation_id)
        refunds = [Payment(payment_id=p.payment_id, amount=-p.amount) for p in reservation.payment_history]
        reservation.payment_history.extend(refunds)
        reservation.status = "cancelled"
        return reservation  # the official tool releases no seats either

    def get_reservation_details(self, reservation_id: str) -> Reservation:
        return self._get_reservation(reservation_id)

    def get_user_details(self, user_id: str) -> User:
        return self._get_user(user_id)

    def list_all_airports(self) -> list[AirportCode]:
        return [AirportCode(iata=iata, city=city) for iata, city in AIRPORTS]

    def search_direct_flight(self, origin: str, destination: str, date: str) -> list[DirectFlight]:
        return self._search_direct_flight(date=date, origin=origin, destination=destination)

    def search_onestop_flight(self, origin: str, destination: str, date: str) -> list[list[DirectFlight]]:
        results = []
        for first in self._search_direct_flight(date=date, origin=origin, destination=None):
            first.date = date
            # The official next-day date: day of month + 1, without a leading zero or a month change.
            date2 = f"2024-05-{int(date[-2:]) + 1}" if "+1" in first.scheduled_arrival_time_est else date
            for second in self._search_direct_flight(
                date=date2,
                origin=first.destination,
                destination=destination,
                leave_after=first.scheduled_arrival_time_est,
            ):
                second.date = date2
                results.append([first, second])
        return results

    def send_certificate(self, user_id: str, amount: int) -> str:
        user = self._get_user(user_id)
        for payment_id in NEW_CERTIFICATE_IDS:
            if payment_id not in user.payment_methods:
                user.payment_methods[payment_id] = Certificate(id=payment_id, amount=amount, source="certificate")
                return f"Certificate {payment_id} added to user {user_id} with amount {amount}."
        raise ValueError("Too many certificates")

    def transfer_to_human_agents(self, summary: str) -> str:
        return "Transfer successful"

    def update_reservation_baggages(
        self, reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str
    ) -> Reservation:
        reservation = self._get_reservation(reservation_id)
        user = self._get_user(reservation.user_id)
        total_price = 50 * max(0, nonfree_baggages - reservation.nonfree_baggages)
        payment = self._payment_for_update(user, payment_id, total_price)
        if payment is not None:
            reservation.payment_history.append(payment)
        # Assigned unvalidated, as officially: a count sent as 2.0 stays a float in the hash.
        reservation.total_baggages = total_baggages
        reservation.nonfree_baggages = nonfree_baggages
        return reservation

    def update_reservation_flights(
        self, reservation_id: str, cabin: str, flights: list[Any], payment_id: str
    ) -> Reservation:
        if all(isinstance(flight, dict) for flight in flights):
            flights = [FlightInfo(**flight) for flight in flights]
        reservation = self._get_reservation(reservation_id)
        user = self._get_user(reservation.user_id)
        total_price = 0
        new_flights = []
        for info in flights:
            kept = next(
                (
                    f
                    for f in reservation.flights
                    if f.flight_number == info.flight_number and f.date == info.date and cabin == reservation.cabin
                ),
                None,
            )
            if kept:
                total_price += kept.price * len(reservation.passengers)
                new_flights.append(kept)
                continue
            flight = self._get_flight(info.flight_number)
            instance = self._get_flight_instance(flight_number=info.flight_number, date=info.date)
            if not isinstance(instance, FlightDateStatusAvailable):
                raise ValueError(f"Flight {info.flight_number} not available on date {info.date}")
            if instance.available_seats[cabin] < len(reservation.passengers):  # type: ignore[index]
                raise ValueError(f"Not enough seats on flight {info.flight_number}")
            added = ReservationFlight(
                flight_number=info.flight_number,
                date=info.date,
                price=instance.prices[cabin],  # type: ignore[index]
                origin=flight.origin,
                destination=flight.destination,
            )
            total_price += added.price * len(reservation.passengers)
            new_flights.append(added)
        total_price -= sum(f.price for f in reservation.flights) * len(reservation.passengers)
        payment = self._payment_for_update(user, payment_id, total_price)
        if payment is not None:
            reservation.payment_history.append(payment)
        reservation.flights = new_flights
        reservation.cabin = cabin  # type: ignore[assignment]
        return reservation  # seats are not updated, as officially

    def update_reservation_passengers(self, reservation_id: str, passengers: list[Any]) -> Reservation:
        if all(isinstance(passenger, dict) for passenger in passengers):
            passengers = [Passenger(**passenger) for passenger in passengers]
        reservation = self._get_reservation(reservation_id)
        if len(passengers) != len(reservation.passengers):
            raise ValueError("Number of passengers does not match")
        reservation.passengers = deepcopy(passengers)
        return reservation

    def get_flight_status(self, flight_number: str, date: str) -> str:
        return str(self._get_flight_instance(flight_number, date).status)
