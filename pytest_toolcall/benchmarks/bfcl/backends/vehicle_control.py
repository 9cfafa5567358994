"""VehicleControlAPI: the car-control API of BFCL multi-turn (official behaviour at gorilla@6ea5797).

Speed and outside-temperature readings come from a `random.Random` seeded from the scenario
(141053 by default). Attributes starting with "_" (brake force, slope angle) are invisible to the
official state check, so they are kept private here too.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from pytest_toolcall.benchmarks.bfcl.backends.world import SharedWorld, long_context_value

MAX_FUEL_LEVEL = 50
MIN_FUEL_LEVEL = 0.0
MILE_PER_GALLON = 20.0

_DEFAULT_STATE: dict[str, Any] = {
    "random_seed": 141053,
    "fuelLevel": 0.0,
    "batteryVoltage": 12.6,
    "engine_state": "stopped",
    "remainingUnlockedDoors": 4,
    "doorStatus": {"driver": "unlocked", "passenger": "unlocked", "rear_left": "unlocked", "rear_right": "unlocked"},
    "acTemperature": 25.0,
    "fanSpeed": 50,
    "acMode": "auto",
    "humidityLevel": 50.0,
    "headLightStatus": "off",
    "parkingBrakeStatus": "released",
    "_parkingBrakeForce": 0.0,
    "_slopeAngle": 0.0,
    "brakePedalStatus": "released",
    "brakePedalForce": 0.0,
    "distanceToNextVehicle": 50.0,
    "cruiseStatus": "inactive",
    "destination": "None",
    "frontLeftTirePressure": 32.0,
    "frontRightTirePressure": 32.0,
    "rearLeftTirePressure": 30.0,
    "rearRightTirePressure": 30.0,
}

# Road distances between zip codes, either direction.
_DISTANCES = {
    ("83214", "74532"): 750.0, ("56108", "62947"): 320.0, ("71354", "83462"): 450.0, ("47329", "52013"): 290.0,
    ("69238", "51479"): 630.0, ("94016", "83214"): 980.0, ("94016", "94704"): 600.0, ("94704", "08540"): 2550.0,
    ("94016", "08540"): 1950.0, ("62947", "47329"): 1053.0, ("94016", "62947"): 780.0, ("74532", "94016"): 880.0,
}  # fmt: skip
_ZIP_CODES = {
    "Rivermist": "83214", "Stonebrook": "74532", "Maplecrest": "56108", "Silverpine": "62947",
    "Shadowridge": "71354", "Sunset Valley": "83462", "Oakendale": "47329", "Willowbend": "52013",
    "Crescent Hollow": "69238", "Autumnville": "51479", "San Francisco": "94016",
}  # fmt: skip


class VehicleControlAPI:
    # The scenario's state, set by ``_load_scenario`` (from the scenario, else ``_DEFAULT_STATE``).
    acTemperature: float
    fanSpeed: int
    acMode: str
    humidityLevel: float
    headLightStatus: str
    parkingBrakeStatus: str
    distanceToNextVehicle: float
    cruiseStatus: str
    destination: str
    frontLeftTirePressure: float
    frontRightTirePressure: float
    rearLeftTirePressure: float
    rearRightTirePressure: float

    def __init__(self, world: SharedWorld | None = None) -> None:
        self._world = world or SharedWorld()
        self._random = random.Random(141053)

    def dispatch_table(self) -> dict[str, Callable[..., Any]]:
        return {
            "activateParkingBrake": self.activateParkingBrake, "adjustClimateControl": self.adjustClimateControl,
            "check_tire_pressure": self.check_tire_pressure, "displayCarStatus": self.displayCarStatus,
            "display_log": self.display_log, "estimate_distance": self.estimate_distance,
            "estimate_drive_feasibility_by_mileage": self.estimate_drive_feasibility_by_mileage,
            "fillFuelTank": self.fillFuelTank, "find_nearest_tire_shop": self.find_nearest_tire_shop,
            "gallon_to_liter": self.gallon_to_liter, "get_current_speed": self.get_current_speed,
            "get_outside_temperature_from_google": self.get_outside_temperature_from_google,
            "get_outside_temperature_from_weather_com": self.get_outside_temperature_from_weather_com,
            "get_zipcode_based_on_city": self.get_zipcode_based_on_city, "liter_to_gallon": self.liter_to_gallon,
            "lockDoors": self.lockDoors, "pressBrakePedal": self.pressBrakePedal,
            "releaseBrakePedal": self.releaseBrakePedal, "setCruiseControl": self.setCruiseControl,
            "setHeadlights": self.setHeadlights, "set_navigation": self.set_navigation,
            "startEngine": self.startEngine,
        }  # fmt: skip

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        defaults = copy.deepcopy(_DEFAULT_STATE)
        self._random = random.Random(scenario.get("random_seed", defaults["random_seed"]))
        self.fuelLevel = scenario.get("fuelLevel", defaults["fuelLevel"])
        self.batteryVoltage = scenario.get("batteryVoltage", defaults["batteryVoltage"])
        # The scenario spells it "engineState".
        self.engine_state = scenario.get("engineState", defaults["engine_state"])
        self.remainingUnlockedDoors = scenario.get("remainingUnlockedDoors", defaults["remainingUnlockedDoors"])
        self.doorStatus = scenario.get("doorStatus", defaults["doorStatus"])
        # The given count is overridden by what the door states say.
        self.remainingUnlockedDoors = 4 - len([1 for door in self.doorStatus if self.doorStatus[door] == "locked"])
        for key in ("acTemperature", "fanSpeed", "acMode", "humidityLevel", "headLightStatus", "parkingBrakeStatus"):
            setattr(self, key, scenario.get(key, defaults[key]))
        self._parkingBrakeForce = scenario.get("parkingBrakeForce", defaults["_parkingBrakeForce"])
        self._slopeAngle = scenario.get("slopeAngle", defaults["_slopeAngle"])
        self.brakePedalStatus = scenario.get("brakePedalStatus", defaults["brakePedalStatus"])
        self._brakePedalForce = scenario.get("brakePedalForce", defaults["brakePedalForce"])
        for key in ("distanceToNextVehicle", "cruiseStatus", "destination", "frontLeftTirePressure",
                    "frontRightTirePressure", "rearLeftTirePressure", "rearRightTirePressure"):  # fmt: skip
            setattr(self, key, scenario.get(key, defaults[key]))
        self.long_context = long_context

    def startEngine(self, ignitionMode: str) -> dict[str, Any]:
        if ignitionMode == "STOP":
            self.engine_state = "stopped"
        if self.remainingUnlockedDoors > 0:
            unlocked = [door for door, status in self.doorStatus.items() if status == "unlocked"]
            return {
                "error": "All doors must be locked before starting the engine. Here are the unlocked doors: "
                + ", ".join(unlocked)
            }
        if self.brakePedalStatus != "pressed":
            return {"error": "Brake pedal needs to be pressed when starting the engine."}
        if self._brakePedalForce != 1000.0:
            return {"error": "Must press the brake fully before starting the engine."}
        if self.fuelLevel < MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty."}
        if ignitionMode != "START":
            return {"error": "Invalid ignition mode."}
        self.engine_state = "running"
        return {"engineState": self.engine_state, "fuelLevel": self.fuelLevel, "batteryVoltage": self.batteryVoltage}

    def fillFuelTank(self, fuelAmount: float) -> dict[str, Any]:
        if fuelAmount < 0:
            return {"error": "Fuel amount cannot be negative."}
        if self.fuelLevel + fuelAmount > MAX_FUEL_LEVEL:
            return {"error": "Cannot fill gas above the tank capacity."}
        if self.fuelLevel + fuelAmount < MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty. Min fuel level is 0 gallons."}
        self.fuelLevel += fuelAmount
        return {"fuelLevel": self.fuelLevel}

    def lockDoors(self, unlock: bool, door: list[str]) -> dict[str, Any]:
        wanted = "unlocked" if unlock else "locked"
        for name in door:
            if self.doorStatus[name] == wanted:
                continue
            self.doorStatus[name] = wanted
            self.remainingUnlockedDoors += 1 if unlock else -1
        return {"lockStatus": wanted, "remainingUnlockedDoors": self.remainingUnlockedDoors}

    def adjustClimateControl(
        self, temperature: float, unit: str = "celsius", fanSpeed: int = 50, mode: str = "auto"
    ) -> dict[str, Any]:
        if not 0 <= fanSpeed <= 100:
            return {"error": "Fan speed must be between 0 and 100."}
        self.acTemperature = temperature
        if unit == "fahrenheit":
            self.acTemperature = (temperature - 32) * 5 / 9
        self.fanSpeed = fanSpeed
        self.acMode = mode
        return {"currentACTemperature": temperature, "climateMode": mode, "humidityLevel": self.humidityLevel}

    def get_outside_temperature_from_google(self) -> dict[str, Any]:
        if self.long_context:
            report = self._world.long_weather_extension
            report["outsideTemperature"] = self._random.uniform(-10.0, 40.0)
            return report
        return {"outsideTemperature": self._random.uniform(-10.0, 40.0)}

    def get_outside_temperature_from_weather_com(self) -> dict[str, Any]:
        return {"error": 404}

    def setHeadlights(self, mode: str) -> dict[str, str]:
        if mode not in ["on", "off", "auto"]:
            return {"error": "Invalid headlight mode."}
        # "auto" switches the lights off.
        self.headLightStatus = "on" if mode == "on" else "off"
        return {"headlightStatus": self.headLightStatus}

    def displayCarStatus(self, option: str) -> dict[str, Any]:
        status: dict[str, Any] = {}
        if self.long_context:
            status["metadata"] = long_context_value("CAR_STATUS_METADATA_EXTENSION")
        if option == "fuel":
            status["fuelLevel"] = self.fuelLevel
        elif option == "battery":
            status["batteryVoltage"] = self.batteryVoltage
        elif option == "doors":
            status["doorStatus"] = self.doorStatus
        elif option == "climate":
            status["currentACTemperature"] = self.acTemperature
            status["fanSpeed"] = self.fanSpeed
            status["climateMode"] = self.acMode
            status["humidityLevel"] = self.humidityLevel
        elif option == "headlights":
            status["headlightStatus"] = self.headLightStatus
        elif option == "parkingBrake":
            status["parkingBrakeStatus"] = self.parkingBrakeStatus
            status["parkingBrakeForce"] = self._parkingBrakeForce
            status["slopeAngle"] = self._slopeAngle
        elif option == "brakePedal":
            status["brakePedalStatus"] = self.brakePedalStatus
            status["brakePedalForce"] = self._brakePedalForce
        elif option == "engine":
            status["engineState"] = self.engine_state
        else:
            status["error"] = "Invalid option"
        return status

    def activateParkingBrake(self, mode: str) -> dict[str, Any]:
        if mode not in ["engage", "release"]:
            return {"error": "Invalid mode"}
        engaged = mode == "engage"
        self.parkingBrakeStatus = "engaged" if engaged else "released"
        self._parkingBrakeForce = 500.0 if engaged else 0.0
        self._slopeAngle = 10.0
        result: dict[str, Any] = {}
        if self.long_context:
            result["parkingBrakeInstruction"] = long_context_value("PARKING_BRAKE_INSTRUCTION")
        result.update(
            {"parkingBrakeStatus": self.parkingBrakeStatus, "_parkingBrakeForce": self._parkingBrakeForce,
             "_slopeAngle": 10.0}
        )  # fmt: skip
        return result

    def pressBrakePedal(self, pedalPosition: float) -> dict[str, Any]:
        if not 0 <= pedalPosition <= 1:
            return {"error": "Pedal position must be between 0 and 1."}
        if pedalPosition == 0:
            self.brakePedalStatus = "released"
            self._brakePedalForce = 0.0
            return {"brakePedalStatus": "released", "brakePedalForce": 0.0}
        force = pedalPosition * 1000
        self.brakePedalStatus = "pressed"
        self._brakePedalForce = force
        return {"brakePedalStatus": "pressed", "brakePedalForce": float(force)}

    def releaseBrakePedal(self) -> dict[str, Any]:
        self.brakePedalStatus = "released"
        self._brakePedalForce = 0.0
        return {"brakePedalStatus": "released", "brakePedalForce": 0.0}

    def setCruiseControl(self, speed: float, activate: bool, distanceToNextVehicle: float) -> dict[str, Any]:
        distanceToNextVehicle = float(distanceToNextVehicle)
        speed = float(speed)
        if self.engine_state == "stopped":
            return {"error": "Start the engine before activating the cruise control."}
        # The distance is stored even when the speed turns out to be invalid.
        self.distanceToNextVehicle = distanceToNextVehicle
        if activate:
            if speed < 0 or speed > 120 or speed % 5 != 0:
                return {"error": "Invalid speed"}
            self.cruiseStatus = "active"
        else:
            self.cruiseStatus = "inactive"
        return {
            "cruiseStatus": self.cruiseStatus,
            "currentSpeed": speed,
            "distanceToNextVehicle": distanceToNextVehicle,
        }

    def get_current_speed(self) -> dict[str, float]:
        return {"currentSpeed": self._random.uniform(0.0, 120.0)}

    def display_log(self, messages: list[str]):
        return {"log": messages}

    def estimate_drive_feasibility_by_mileage(self, distance: float) -> dict[str, bool]:
        return {"canDrive": not self.fuelLevel * MILE_PER_GALLON < distance}

    def liter_to_gallon(self, liter: float) -> dict[str, float]:
        return {"gallon": liter * 0.264172}

    def gallon_to_liter(self, gallon: float) -> dict[str, float]:
        return {"liter": gallon * 3.78541}

    def estimate_distance(self, cityA: str, cityB: str) -> dict[str, Any]:
        distance: dict[str, Any] = {"error": "distance not found in database."}
        for (first, second), miles in _DISTANCES.items():
            if (cityA == first and cityB == second) or (cityA == second and cityB == first):
                distance = {"distance": miles}
                break
        if self.long_context:
            distance["intermediaryCities"] = long_context_value("INTERMEDIARY_CITIES")
        return distance

    def get_zipcode_based_on_city(self, city: str) -> dict[str, str]:
        for name, zipcode in _ZIP_CODES.items():
            if city == name:
                return {"zipcode": zipcode}
        return {"zipcode": "00000"}

    def set_navigation(self, destination: str) -> dict[str, str]:
        self.destination = destination
        return {"status": "Navigating to " + destination}

    def check_tire_pressure(self):
        pressures = [self.frontLeftTirePressure, self.frontRightTirePressure, self.rearLeftTirePressure,
                     self.rearRightTirePressure]  # fmt: skip
        healthy = 30 <= (pressures[0] + pressures[1] + pressures[2] + pressures[3]) / 4 <= 35
        return {
            "frontLeftTirePressure": self.frontLeftTirePressure,
            "frontRightTirePressure": self.frontRightTirePressure,
            "rearLeftTirePressure": self.rearLeftTirePressure,
            "rearRightTirePressure": self.rearRightTirePressure,
            "healthy_tire_pressure": healthy,
            "car_info": long_context_value("CAR_STATUS_METADATA_EXTENSION") if self.long_context else {},
        }

    def find_nearest_tire_shop(self) -> dict[str, str]:
        return {"shopLocation": "456 Oakwood Avenue, Rivermist, 83214"}
