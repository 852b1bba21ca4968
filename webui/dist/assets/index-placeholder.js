document.getElementById("root").textContent = "placeholder";
